// The names in a checkpoint root (store.h) and reading them back: epoch directory names, which of
// them a store keeps, listing them (all, or one owner's: owner.h), and reading a checkpoint file
// as untrusted input. Nothing here writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {

// The name of a checkpoint's manifest in its directory.
inline constexpr char kManifest[] = "manifest.json";

// The largest checkpoint file read back whose size no model implies (names.txt, a format-1
// tensor file being converted, legacy.h), and the largest whose checksum is verified: 1 GiB.
// Tensor files are read with the cap their model implies (tensor_file.h).
inline constexpr int64_t kMaxCheckpointFileBytes = int64_t{1} << 30;
// The largest manifest.json read back: 4 MiB.
inline constexpr int64_t kMaxManifestBytes = int64_t{4} << 20;

// Reads the file `name` (a plain relative path, e.g. "names.txt" or "epoch-000003/names.txt") of
// the checkpoint directory `dir` as untrusted input (common/untrusted_file.h) of at most
// `max_bytes`: NotFound when it is missing, Corruption when it is a symlink, FIFO, device,
// directory or too large, IoError when the OS refuses.
Status ReadCheckpointFile(const std::string& dir, const std::string& name, int64_t max_bytes,
                          std::string* out);

// "epoch-000003" for 3.
std::string EpochDirName(int64_t epoch);

// Parses a name made by EpochDirName; false for anything else (e.g. 20 digits: no overflow).
bool ParseEpochDirName(const std::string& name, int64_t* epoch);

// Given checkpoint directory names ordered oldest first, those to delete to keep `keep`.
std::vector<std::string> DirsBeyondKeep(const std::vector<std::string>& oldest_first, int keep);

// Epoch directory names under `root`, oldest first (empty when root does not exist); symlinks
// are not checkpoints.
std::vector<std::string> ListCheckpoints(const std::string& root);

// Epoch directory names under `root` whose checkpoint belongs to `owner` (owner.h), oldest
// first. A directory whose manifest cannot be read, or does not verify with a non-empty `key`,
// is nobody's: it is left alone.
std::vector<std::string> ListOwnedCheckpoints(const std::string& root, const Owner& owner,
                                              const std::string& key);

// The owner recorded in the checkpoint directory `name` under `root`; false when its manifest
// is unreadable or does not verify with `key`.
bool ReadOwner(const std::string& root, const std::string& name, const std::string& key,
               Owner* owner);

// The owner the newest epoch directory under `root` names in its manifest, read without checking
// a MAC: only to say whose checkpoints a run cannot verify are (owner.h CheckClaimedOwner).
// False when there is none or its manifest cannot be read.
bool ClaimedOwner(const std::string& root, Owner* owner);

}  // namespace petname::checkpoint
