// Token windows for the model's tests: what the prefix forests are built from.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace petname::model::testing {

constexpr int64_t kSteps = 8;

// `rows` left-padded windows of kSteps tokens over a 5-letter alphabet (tokens 2..6, padding 0),
// each of a random length from 1 to kSteps: heavy prefix sharing, as in the real data.
// Deterministic in `seed`.
inline torch::Tensor Windows(int64_t rows, uint64_t seed) {
  torch::manual_seed(seed);
  torch::Tensor tokens = torch::randint(2, 7, {rows, kSteps}, torch::kInt64);
  const torch::Tensor length = torch::randint(1, kSteps + 1, {rows, 1}, torch::kInt64);
  return torch::where(torch::arange(kSteps).view({1, -1}) < kSteps - length,
                      torch::zeros_like(tokens), tokens);
}

}  // namespace petname::model::testing
