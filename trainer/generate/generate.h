// Sampling pet names from a trained checkpoint.
//
// Each name starts from a window of pad characters followed by the prefix; the model's
// logits at the last position give the next character (temperature-scaled softmax, pad
// never chosen, stop not chosen for an empty name). A name ends at the stop character or
// at `max_length` characters. Deterministic for a seed: the randomness is generate::Random.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::generate {

struct GenerateOptions {
  std::string checkpoint;  // a checkpoint directory, a file in one, or a checkpoint root
  int64_t count = 10;
  double temperature = 1.0;
  uint64_t seed = 42;
  std::string prefix;  // lower-cased name characters
  bool exclude_training_names = false;
  int max_length = 24;
  std::string checkpoint_key;  // the job's key (checkpoint/manifest_mac.h); empty: none here
};

// Fills `*names` with `count` title-cased names. Damaged checkpoints skipped on the way are
// described in `*warnings`; `*source` names the checkpoint read, its owner and signature
// (checkpoint/manifest_mac.h DescribeCheckpoint).
Status Generate(const GenerateOptions& options, std::vector<std::string>* names,
                std::vector<std::string>* warnings, std::string* source);

}  // namespace petname::generate
