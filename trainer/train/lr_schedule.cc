#include "trainer/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace petname::train {

bool ParseLrDecay(const std::string& name, LrDecay* out) {
  if (name == "constant") {
    *out = LrDecay::kConstant;
    return true;
  }
  if (name == "cosine") {
    *out = LrDecay::kCosine;
    return true;
  }
  return false;
}

const char* LrDecayName(LrDecay decay) { return decay == LrDecay::kCosine ? "cosine" : "constant"; }

double LearningRateAt(const LrSchedule& s, int64_t step) {
  step = std::max<int64_t>(step, 0);
  if (step < s.warmup_steps) {
    return s.base * static_cast<double>(step + 1) / static_cast<double>(s.warmup_steps);
  }
  if (s.decay == LrDecay::kConstant) return s.base;
  // Cosine over the steps after warm-up: the first of them runs at `base`, the rate after
  // the last one would be 0.
  const int64_t span = std::max<int64_t>(s.total_steps - s.warmup_steps, 1);
  const int64_t into = std::min(step - s.warmup_steps, span - 1);
  const double progress = static_cast<double>(into) / static_cast<double>(span);
  return s.base * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace petname::train
