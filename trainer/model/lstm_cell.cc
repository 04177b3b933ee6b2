#include "trainer/model/lstm_cell.h"

#include <algorithm>
#include <cstring>

// The loops below are written so that GCC vectorises them (checked with -fopt-info-vec);
// target_clones builds AVX-512, AVX2 and baseline versions and picks one at load time.
#define PETNAME_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace petname::model {
namespace {

// Cephes-style expf: range reduction by ln 2, degree-6 polynomial, exponent by bit shift.
// Branch-free so that it vectorises; inputs are clamped to the finite range of float.
inline float Exp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(x/ln2)
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + Exp(-x)); }

inline float Tanh(float x) { return 2.0f / (1.0f + Exp(-2.0f * x)) - 1.0f; }

}  // namespace

PETNAME_VECTOR_CLONES
void LstmCellForward(int64_t rows, int64_t hidden, float* __restrict gates,
                     const float* __restrict c_prev, float* __restrict c, float* __restrict h) {
  for (int64_t r = 0; r < rows; ++r) {
    float* a = gates + r * 4 * hidden;
    const int64_t s = r * hidden;
    for (int64_t j = 0; j < hidden; ++j) {
      const float i = Sigmoid(a[j]);
      const float f = Sigmoid(a[hidden + j]);
      const float g = Tanh(a[2 * hidden + j]);
      const float o = Sigmoid(a[3 * hidden + j]);
      const float cell = f * c_prev[s + j] + i * g;
      a[j] = i;
      a[hidden + j] = f;
      a[2 * hidden + j] = g;
      a[3 * hidden + j] = o;
      c[s + j] = cell;
      h[s + j] = o * Tanh(cell);
    }
  }
}

PETNAME_VECTOR_CLONES
void LstmCellBackward(int64_t rows, int64_t hidden, float* __restrict gates,
                      const float* __restrict c_prev, const float* __restrict c,
                      const float* __restrict dh, float* __restrict dc) {
  for (int64_t r = 0; r < rows; ++r) {
    float* a = gates + r * 4 * hidden;
    const int64_t s = r * hidden;
    for (int64_t j = 0; j < hidden; ++j) {
      const float i = a[j];
      const float f = a[hidden + j];
      const float g = a[2 * hidden + j];
      const float o = a[3 * hidden + j];
      const float tc = Tanh(c[s + j]);
      const float dcell = dc[s + j] + dh[s + j] * o * (1.0f - tc * tc);
      a[j] = dcell * g * i * (1.0f - i);
      a[hidden + j] = dcell * c_prev[s + j] * f * (1.0f - f);
      a[2 * hidden + j] = dcell * i * (1.0f - g * g);
      a[3 * hidden + j] = dh[s + j] * tc * o * (1.0f - o);
      dc[s + j] = dcell * f;
    }
  }
}

}  // namespace petname::model
