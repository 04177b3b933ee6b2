#include "trainer/distributed/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "trainer/data/sampler.h"

namespace petname::dist {
namespace {

std::map<int64_t, int> CountAcrossRanks(int64_t n, int world, bool drop_last, int64_t start,
                                        size_t* shard_size) {
  std::map<int64_t, int> seen;
  for (int r = 0; r < world; ++r) {
    auto shard = ShardIndices(data::EpochPermutation(5, 2, n), start, world, r, drop_last);
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
  auto perm = data::EpochPermutation(5, 2, 90);
  std::vector<int64_t> consumed;
  for (int r = 0; r < 2; ++r) {
    auto shard = ShardIndices(perm, 0, 2, r, false);
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

TEST(SamplerTest, ResumingAPaddedEpochReplaysTheSamePositions) {
  // 101 examples on 4 ranks, batch 5: after 2 steps, 40 positions are done.
  auto perm = data::EpochPermutation(9, 1, 101);
  for (int r = 0; r < 4; ++r) {
    auto whole = ShardIndices(perm, 0, 4, r, false);
    auto rest = ShardIndices(perm, 40, 4, r, false);
    ASSERT_EQ(rest.size(), whole.size() - 10);
    EXPECT_TRUE(std::equal(rest.begin(), rest.end(), whole.begin() + 10)) << "rank " << r;
  }
  EXPECT_TRUE(ShardIndices(perm, 104, 4, 0, false).empty());
  // Resumed on 3 ranks from position 40: 62 positions left, padded to 3 shards of 21.
  for (int r = 0; r < 3; ++r) EXPECT_EQ(ShardIndices(perm, 40, 3, r, false).size(), 21u);
  EXPECT_TRUE(ShardIndices(perm, 100, 4, 0, true).empty());
}

TEST(SamplerTest, ShardLength) {
  EXPECT_EQ(ShardLength(10, 3, false), 4);
  EXPECT_EQ(ShardLength(10, 3, true), 3);
  EXPECT_EQ(ShardLength(0, 3, false), 0);
  EXPECT_EQ(ShardLength(2, 3, true), 0);
  EXPECT_EQ(ShardLength(-1, 3, false), 0);
}

}  // namespace
}  // namespace petname::dist
