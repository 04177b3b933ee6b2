// Saving and loading the LibTorch parts of a checkpoint directory (see store.h for the
// layout and the atomic write). Every tensor file is a safetensors file (tensor_file.h), which
// runs no code when read and holds nothing but the tensors the model says it must:
//   model.safetensors      the CharLstm's parameters, under the model's names
//   optimizer.safetensors  the Adam state (adam_state.h)
//   rng.safetensors        the default CPU generator's state ("cpu_generator", uint8)
//   names.txt              the distinct training names, one per line
// Each file is read once, its bytes checked against the sha256 the verified manifest records,
// and used from those bytes. Library errors (c10::Error) are turned into Status here. Files
// are written 0600 and read back through ReadCheckpointFile (store.h): a regular file of the
// directory, never a path that could be a FIFO, device or symlink.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/model/model.h"

namespace petname::checkpoint {

inline constexpr const char* kModelFile = "model.safetensors";
inline constexpr const char* kOptimizerFile = "optimizer.safetensors";
inline constexpr const char* kRngFile = "rng.safetensors";
inline constexpr const char* kNamesFile = "names.txt";

// Writes a complete checkpoint for `manifest.epoch` under `root`, signed with `key`
// (manifest_mac.h; empty: unsigned), and keeps the newest `keep`.
Status SaveCheckpoint(const std::string& root, const Manifest& manifest, int keep,
                      model::CharLstm& model, torch::optim::Adam& optimizer,
                      const std::vector<std::string>& training_names, const std::string& key);

// Loads model.safetensors of the checkpoint directory `dir`, verified as `manifest`, into
// `model` (built from manifest.hyper). Corruption when the manifest lists no such file or it
// does not hold exactly `model`'s parameters (tensor_file.h).
Status LoadModel(const std::string& dir, const Manifest& manifest, model::CharLstm& model);

// Loads model, optimizer and generator state of the checkpoint directory `dir`, verified as
// `manifest`.
Status LoadTrainingState(const std::string& dir, const Manifest& manifest, model::CharLstm& model,
                         torch::optim::Adam& optimizer);

// Reads names.txt of the checkpoint directory `dir`, verified as `manifest`.
Status ReadTrainingNames(const std::string& dir, const Manifest& manifest,
                         std::vector<std::string>* names);

}  // namespace petname::checkpoint
