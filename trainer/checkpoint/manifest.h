// The manifest.json of a checkpoint directory: what was trained, on what data, how far,
// and the sha256 of every other file in the directory. Pure (de)serialisation; no LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/fingerprint.h"
#include "common/status.h"

namespace petname::checkpoint {

// Bumped whenever the layout of a checkpoint changes incompatibly. 2: tensor files are
// safetensors (checkpoint.h) and the manifest may be signed (manifest_mac.h); 1: TorchScript
// archives, read only to convert them (legacy.h).
inline constexpr int kFormatVersion = 2;

struct HyperParameters {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t window = 0;
  int64_t batch_size = 0;
  double learning_rate = 0;
  uint64_t seed = 0;
  std::string precision;
  double validation_fraction = 0;
};

struct Metrics {
  double train_loss = 0;
  double val_loss = 0;
  double val_accuracy = 0;
};

// Who wrote a checkpoint (checkpoint/owner.h): the job the operator ran, or a local run.
struct Owner {
  std::string id;   // "job NAMESPACE/NAME" or "run RUN_ID"; empty: not recorded (older petname)
  std::string uid;  // the job's metadata.uid, for messages; empty for local runs
};

struct Manifest {
  int format_version = kFormatVersion;
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;   // optimizer steps completed
  // Global examples of epoch `epoch + 1` already trained: non-zero only for a checkpoint
  // written when a run was stopped (SIGTERM) in the middle of an epoch.
  int64_t epoch_examples = 0;
  // Ranks that trained it; the global batch was hyper.batch_size × world_size.
  int64_t world_size = 1;
  HyperParameters hyper;
  std::string vocabulary;
  std::string data_fingerprint;
  Metrics metrics;
  std::map<std::string, std::string> files;  // file name in the directory -> sha256 hex
  // Absent (empty) in checkpoints written before owners were recorded.
  Owner owner;
  Fingerprint settings;         // what must match on resume (train/run_fingerprint.h)
  std::string settings_sha256;  // FingerprintDigest(settings)
  // Read back: whether manifest.json carries a MAC (manifest_mac.h). Written from the key.
  bool is_signed = false;
};

// The manifest as JSON text, with its MAC under `key` when `key` is not empty.
std::string ManifestToJson(const Manifest& m, const std::string& key);

// Parses manifest.json text, whose MAC must verify with `key` when `key` is not empty
// (CheckManifestMac). Corruption when it is not a complete manifest or does not verify;
// FailedPrecondition when it is from another format version (for format 1, naming `petname
// convert-checkpoints`).
Status ParseManifest(const std::string& json, const std::string& key, Manifest* out);

// Whether a run configured like `want` may continue from the checkpoint `have`. A different
// model shape (vocabulary, hidden size, layers) is always refused: its weights cannot load.
// Different data (fingerprint, window, validation split) is refused unless `force`.
Status CheckResumable(const Manifest& have, const Manifest& want, bool force);

}  // namespace petname::checkpoint
