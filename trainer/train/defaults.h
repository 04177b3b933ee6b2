// What `petname train` uses when a flag is not given: the original recipe's hyper-parameters.
// TrainOptions (train.h) and the CLI take them from here; so does the test that checks them
// against the CRD's defaults (tests/operator/api/crd_defaults_test.cc), which links no LibTorch.
// The validation fraction is data::EncodeOptions' and the master port dist::kDefaultMasterPort.
#pragma once

#include <cstdint>

namespace petname::train {

inline constexpr int64_t kDefaultEpochs = 10;
inline constexpr int64_t kDefaultBatchSize = 4096;  // per rank
inline constexpr double kDefaultLearningRate = 1e-3;
inline constexpr uint64_t kDefaultSeed = 42;
inline constexpr char kDefaultPrecision[] = "fp32";
inline constexpr int64_t kDefaultCheckpointEveryEpochs = 1;
inline constexpr int kDefaultKeep = 3;  // checkpoints kept
inline constexpr int64_t kDefaultWarmupSteps = 0;
inline constexpr char kDefaultLrSchedule[] = "constant";
// --deterministic: off, the fast path (gradient sums in whatever order the device adds them).
inline constexpr bool kDefaultDeterministic = false;

}  // namespace petname::train
