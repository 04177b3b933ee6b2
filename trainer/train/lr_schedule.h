// Learning-rate schedule: an optional linear warm-up, then either the base rate held
// constant or a cosine decay to zero at the last step (PyTorch's LinearLR followed by
// CosineAnnealingLR with eta_min 0). It is a pure function of the optimizer step, so a
// resumed run continues the same curve from its saved step count, and every rank computes
// the same rate. Pure C++, no LibTorch.
#pragma once

#include <cstdint>
#include <string>

namespace petname::train {

enum class LrDecay { kConstant, kCosine };

// "constant" / "cosine" <-> LrDecay. ParseLrDecay returns false on an unknown name.
bool ParseLrDecay(const std::string& name, LrDecay* out);
const char* LrDecayName(LrDecay decay);

struct LrSchedule {
  double base = 1e-3;
  int64_t warmup_steps = 0;  // the first steps rise linearly: base * (step + 1) / warmup_steps
  LrDecay decay = LrDecay::kConstant;
  int64_t total_steps = 0;  // steps of the whole run; cosine reaches 0 after the last one
};

// The rate for optimizer step `step` (0-based: the step about to run). Never negative; steps
// past total_steps keep the last step's rate.
double LearningRateAt(const LrSchedule& schedule, int64_t step);

}  // namespace petname::train
