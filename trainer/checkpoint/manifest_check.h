// Type and range checks of a manifest.json read from disk. A checkpoint directory is untrusted
// input (a damaged volume, another tenant's files): every value that sizes an allocation,
// names a file or counts progress is checked before anything uses it, and the first bad one
// is named, e.g. "hyper_parameters.window is -1, outside [1, 256]". Pure; no LibTorch.
//
// Bounds: epoch and step counts non-negative (epoch below 10^6, what an epoch directory name
// holds), world size 1..65536, vocabulary 1..256 characters and vocab_size its length,
// hidden size 1..1024 and 1..16 layers (this trainer writes 128 and 4; the bound keeps a model
// built from a hostile manifest under ~0.6 GB), window 1..256, batch 1..2^24, learning rate and
// validation fraction finite in [0, 10] and [0, 1), metrics numbers or null (NaN), data
// fingerprint up to 128 hex digits, at most 64 files, each a plain name (IsPlainFileName) with
// a 64-digit lower-case sha256, and "mac", when present, 64 lower-case hex digits.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/status.h"

namespace petname::checkpoint {

// Whether `name` may name a file inside a checkpoint directory: 1 to 64 characters of
// [A-Za-z0-9._-], not starting with '.' (so no "..", no hidden file), and not manifest.json.
bool IsPlainFileName(const std::string& name);

// Ok when the parsed manifest.json `j` (an object) has every field of this format version
// with the right type and in range; Corruption naming the first field that is not. Only
// format_version's type is checked when it names another version (its layout is unknown).
Status CheckManifestJson(const nlohmann::json& j);

}  // namespace petname::checkpoint
