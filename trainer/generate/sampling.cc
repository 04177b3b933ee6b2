#include "trainer/generate/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trainer/data/vocabulary.h"

namespace petname::generate {

double Random::Uniform() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

int SampleIndex(const std::vector<float>& logits, double temperature, bool allow_stop, double u) {
  const int n = static_cast<int>(logits.size());
  auto allowed = [&](int i) {
    return i != data::kPadIndex && (allow_stop || i != data::kStopIndex);
  };
  double top = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    if (allowed(i)) top = std::max(top, static_cast<double>(logits[i]) / temperature);
  }
  std::vector<double> weights(static_cast<size_t>(n), 0.0);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    if (allowed(i)) total += weights[i] = std::exp(logits[i] / temperature - top);
  }
  double target = u * total;
  int last = 0;
  for (int i = 0; i < n; ++i) {
    if (!allowed(i)) continue;
    last = i;
    if (target < weights[i]) return i;
    target -= weights[i];
  }
  return last;
}

std::string TitleCase(const std::string& name) {
  std::string out = name;
  bool start = true;
  for (char& c : out) {
    if (start && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    start = c == ' ' || c == '-';
  }
  return out;
}

}  // namespace petname::generate
