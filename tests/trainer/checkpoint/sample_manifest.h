// A manifest that passes manifest_check.h, for tests that write checkpoints of their own.
#pragma once

#include <string>

#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {

inline Manifest SampleManifest(int64_t epoch = 3) {
  Manifest m;
  m.epoch = epoch;
  m.step = 75 * epoch;
  m.hyper = {31, 128, 4, 8, 4096, 0.001, 42, "fp32", 0.05};
  m.vocabulary = "*+abcdefghijklmnopqrstuvwxyz-. ";
  m.data_fingerprint = std::string(64, 'a');
  m.metrics = {1.9, 1.8, 0.55};
  return m;
}

}  // namespace petname::checkpoint
