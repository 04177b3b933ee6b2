#include "trainer/model/lstm_cell.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace petname::model {
namespace {

constexpr int64_t kRows = 3;
constexpr int64_t kHidden = 37;  // not a multiple of the vector width

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Deterministic pre-activations covering saturation on both sides.
std::vector<float> Ramp(int64_t n, float scale, float phase) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[k] = scale * std::sin(0.7f * static_cast<float>(k) + phase);
  return v;
}

struct Step {
  std::vector<float> act, c, h;
};

Step Forward(const std::vector<float>& pre, const std::vector<float>& c_prev) {
  Step s{pre, std::vector<float>(kRows * kHidden), std::vector<float>(kRows * kHidden)};
  LstmCellForward(kRows, kHidden, s.act.data(), c_prev.data(), s.c.data(), s.h.data());
  return s;
}

// Loss L = sum(wh * h) + sum(wc * c) for fixed weights, so dL/dh = wh and dL/dc = wc.
double Loss(const Step& s, const std::vector<float>& wh, const std::vector<float>& wc) {
  double l = 0;
  for (size_t k = 0; k < s.h.size(); ++k) l += wh[k] * s.h[k] + wc[k] * s.c[k];
  return l;
}

TEST(LstmCellTest, ForwardMatchesTheLstmEquations) {
  const std::vector<float> pre = Ramp(kRows * 4 * kHidden, 9.0f, 0.3f);
  const std::vector<float> c_prev = Ramp(kRows * kHidden, 2.0f, 1.1f);
  const Step s = Forward(pre, c_prev);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t j = 0; j < kHidden; ++j) {
      const float* p = pre.data() + r * 4 * kHidden;
      const double i = Sigmoid(p[j]);
      const double f = Sigmoid(p[kHidden + j]);
      const double g = std::tanh(static_cast<double>(p[2 * kHidden + j]));
      const double o = Sigmoid(p[3 * kHidden + j]);
      const double c = f * c_prev[r * kHidden + j] + i * g;
      EXPECT_NEAR(s.act[r * 4 * kHidden + j], i, 1e-6);
      EXPECT_NEAR(s.act[r * 4 * kHidden + 2 * kHidden + j], g, 1e-6);
      EXPECT_NEAR(s.c[r * kHidden + j], c, 2e-6);
      EXPECT_NEAR(s.h[r * kHidden + j], o * std::tanh(c), 2e-6);
    }
  }
}

TEST(LstmCellTest, ExtremeInputsStayFinite) {
  std::vector<float> pre(kRows * 4 * kHidden, 1e30f);
  for (size_t k = 0; k < pre.size(); k += 2) pre[k] = -1e30f;
  const Step s = Forward(pre, std::vector<float>(kRows * kHidden, 0.5f));
  for (float v : s.h) EXPECT_TRUE(std::isfinite(v));
  for (float v : s.act) EXPECT_TRUE(v >= -1.0f && v <= 1.0f);
}

TEST(LstmCellTest, BackwardMatchesFiniteDifferences) {
  const std::vector<float> pre = Ramp(kRows * 4 * kHidden, 2.0f, 0.5f);
  const std::vector<float> c_prev = Ramp(kRows * kHidden, 1.0f, 2.0f);
  const std::vector<float> wh = Ramp(kRows * kHidden, 1.0f, 0.9f);
  const std::vector<float> wc = Ramp(kRows * kHidden, 0.5f, 1.7f);

  Step s = Forward(pre, c_prev);
  std::vector<float> dc = wc;
  LstmCellBackward(kRows, kHidden, s.act.data(), c_prev.data(), s.c.data(), wh.data(), dc.data());

  // Central difference of the loss in element k of `x`, where loss(x) runs the forward.
  auto numeric = [&](const std::vector<float>& x, size_t k, auto loss) {
    const float eps = 1e-2f;
    std::vector<float> plus = x, minus = x;
    plus[k] += eps;
    minus[k] -= eps;
    return (loss(plus) - loss(minus)) / (2 * eps);
  };
  auto by_pre = [&](const std::vector<float>& x) { return Loss(Forward(x, c_prev), wh, wc); };
  auto by_c_prev = [&](const std::vector<float>& x) { return Loss(Forward(pre, x), wh, wc); };
  for (size_t k = 0; k < pre.size(); k += 5) {
    EXPECT_NEAR(s.act[k], numeric(pre, k, by_pre), 2e-3) << "pre-activation " << k;
  }
  for (size_t k = 0; k < c_prev.size(); k += 3) {
    EXPECT_NEAR(dc[k], numeric(c_prev, k, by_c_prev), 2e-3) << "c_prev " << k;
  }
}

}  // namespace
}  // namespace petname::model
