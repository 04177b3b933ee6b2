// Named LibTorch tensors as a safetensors file (trainer/safetensors), the only tensor format a
// checkpoint holds: reading one runs no code, and what it may hold is fixed by the reader.
//
// A file is read back only into tensors the caller already has (a model's parameters, state
// shaped like them): their names, dtypes and shapes are what the file must hold, checked in
// full (safetensors/reader.h) before a byte is copied, and the file is read with the cap
// those tensors imply, so a file that claims more is refused before it is read. The bytes
// parsed are the bytes whose sha256 is compared with the manifest's, so a file swapped after
// the checkpoint was verified is refused too.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace petname::checkpoint {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Encodes `tensors` (on any device; float32, int64 or uint8) and `metadata` as a safetensors
// file. Internal for another dtype.
Status EncodeTensors(const NamedTensors& tensors,
                     const std::map<std::string, std::string>& metadata, std::string* out);

// Reads the file `name` of the checkpoint directory `dir`, whose manifest records `sha256`,
// into `into` (each tensor keeps its device; the caller's, e.g. the model's parameters).
// Corruption naming the file and the first difference: another checksum, more bytes than
// `into` needs, or a header that does not describe exactly `into`. NotFound when missing.
Status LoadTensors(const std::string& dir, const std::string& name, const std::string& sha256,
                   const NamedTensors& into);

}  // namespace petname::checkpoint
