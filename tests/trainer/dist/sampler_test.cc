#include "trainer/dist/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace petname::dist {
namespace {

TEST(SamplerTest, PermutationIsDeterministicAndComplete) {
  auto a = EpochPermutation(1000, 7, 3);
  auto b = EpochPermutation(1000, 7, 3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, EpochPermutation(1000, 7, 4));
  EXPECT_NE(a, EpochPermutation(1000, 8, 3));
  std::sort(a.begin(), a.end());
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(a[static_cast<size_t>(i)], i);
}

TEST(SamplerTest, PermutationIsPinned) {
  // Same seed, same order on every platform and build: the loss trace depends on it.
  EXPECT_EQ(EpochPermutation(8, 42, 0), (std::vector<int64_t>{3, 1, 2, 7, 4, 0, 5, 6}));
  EXPECT_EQ(EpochPermutation(8, 42, 1), (std::vector<int64_t>{5, 2, 7, 3, 4, 0, 6, 1}));
  EXPECT_EQ(EpochPermutation(0, 1, 0).size(), 0u);
  EXPECT_EQ(EpochPermutation(1, 1, 0), std::vector<int64_t>{0});
}

std::map<int64_t, int> CountAcrossRanks(int64_t n, int world, bool drop_last, int64_t start,
                                        size_t* shard_size) {
  std::map<int64_t, int> seen;
  for (int r = 0; r < world; ++r) {
    auto shard = ShardedSampler(n, world, r, 5, drop_last).EpochIndices(2, start);
    if (r == 0) *shard_size = shard.size();
    EXPECT_EQ(shard.size(), *shard_size) << "rank " << r;
    for (int64_t i : shard) ++seen[i];
  }
  return seen;
}

TEST(SamplerTest, DivisibleEpochSeesEveryExampleOnce) {
  size_t len = 0;
  auto seen = CountAcrossRanks(120, 3, false, 0, &len);
  EXPECT_EQ(len, 40u);
  EXPECT_EQ(seen.size(), 120u);
  for (auto& [index, count] : seen) EXPECT_EQ(count, 1) << index;
}

TEST(SamplerTest, PaddingRepeatsOnlyToEqualiseShards) {
  size_t len = 0;
  auto seen = CountAcrossRanks(101, 4, false, 0, &len);
  EXPECT_EQ(len, 26u);
  EXPECT_EQ(seen.size(), 101u);
  int extra = 0;
  for (auto& [index, count] : seen) {
    EXPECT_LE(count, 2);
    extra += count - 1;
  }
  EXPECT_EQ(extra, 26 * 4 - 101);
}

TEST(SamplerTest, DropLastDropsTheTail) {
  size_t len = 0;
  auto seen = CountAcrossRanks(101, 4, true, 0, &len);
  EXPECT_EQ(len, 25u);
  EXPECT_EQ(seen.size(), 100u);
  for (auto& [index, count] : seen) EXPECT_EQ(count, 1);
}

TEST(SamplerTest, ResumeSkipsConsumedExamplesWhateverTheWorldSize) {
  // Two ranks with batch 5 ran 3 steps: 30 global examples consumed. Three ranks go on.
  auto perm = EpochPermutation(90, 5, 2);
  std::vector<int64_t> consumed;
  for (int r = 0; r < 2; ++r) {
    auto shard = ShardedSampler(90, 2, r, 5, false).EpochIndices(2);
    consumed.insert(consumed.end(), shard.begin(), shard.begin() + 15);
  }
  std::sort(consumed.begin(), consumed.end());
  std::vector<int64_t> expected(perm.begin(), perm.begin() + 30);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(consumed, expected);

  size_t len = 0;
  auto seen = CountAcrossRanks(90, 3, false, 30, &len);
  EXPECT_EQ(len, 20u);
  for (int64_t i : expected) EXPECT_EQ(seen.count(i), 0u);
  EXPECT_EQ(seen.size(), 60u);
}

TEST(SamplerTest, ShardLength) {
  EXPECT_EQ(ShardLength(10, 3, false), 4);
  EXPECT_EQ(ShardLength(10, 3, true), 3);
  EXPECT_EQ(ShardLength(0, 3, false), 0);
  EXPECT_EQ(ShardLength(2, 3, true), 0);
}

}  // namespace
}  // namespace petname::dist
