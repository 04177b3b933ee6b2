#include "trainer/data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace petname::data {
namespace {

TEST(EpochPermutationTest, IsAPermutation) {
  std::vector<int64_t> p = EpochPermutation(42, 3, 1000);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> want(1000);
  std::iota(want.begin(), want.end(), int64_t{0});
  EXPECT_EQ(sorted, want);
  EXPECT_NE(p, want);
}

TEST(EpochPermutationTest, PureFunctionOfSeedAndEpoch) {
  EXPECT_EQ(EpochPermutation(7, 1, 500), EpochPermutation(7, 1, 500));
  EXPECT_NE(EpochPermutation(7, 1, 500), EpochPermutation(7, 2, 500));
  EXPECT_NE(EpochPermutation(7, 1, 500), EpochPermutation(8, 1, 500));
  EXPECT_TRUE(EpochPermutation(7, 1, 0).empty());
  EXPECT_EQ(EpochPermutation(7, 1, 1), std::vector<int64_t>{0});
}

TEST(EpochPermutationTest, KnownValuesDoNotDrift) {
  // Pinned so that a change of the algorithm (which would break resuming old runs) shows.
  EXPECT_EQ(EpochPermutation(1, 1, 8), (std::vector<int64_t>{2, 5, 3, 6, 4, 7, 0, 1}));
}

}  // namespace
}  // namespace petname::data
