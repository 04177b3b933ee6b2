// Pure pieces of name generation: choosing the next character from logits, the random
// numbers behind it, and how a finished name is printed. No LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace petname::generate {

// A small portable generator (SplitMix64): the same names for a seed on every platform.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  double Uniform();  // in [0, 1)

 private:
  uint64_t state_;
};

// Samples a vocabulary index from `logits` / `temperature` with the uniform number `u`. The
// pad index is never chosen; the stop index only when `allow_stop`.
int SampleIndex(const std::vector<float>& logits, double temperature, bool allow_stop, double u);

// "mary-jane jr." -> "Mary-Jane Jr.": upper-cases the first letter of every word, where
// words are separated by spaces or hyphens.
std::string TitleCase(const std::string& name);

}  // namespace petname::generate
