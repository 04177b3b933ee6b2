#include "trainer/distributed/batch_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace petname::dist {
namespace {

std::vector<uint8_t> RandomRows(int64_t rows, int64_t steps, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> tokens(static_cast<size_t>(rows * steps));
  for (auto& t : tokens) t = static_cast<uint8_t>(rng() % 4);  // few symbols: many shared prefixes
  return tokens;
}

TEST(BatchSplitTest, EveryRowGoesToExactlyOneRank) {
  for (int world : {1, 2, 3, 4}) {
    for (int64_t rows : {0, 1, 5, 64, 101}) {
      const std::vector<uint8_t> tokens = RandomRows(rows, 8, 7);
      std::multiset<int64_t> seen;
      for (int rank = 0; rank < world; ++rank) {
        for (int64_t p : RankRowsOfBatch(tokens.data(), rows, 8, world, rank)) seen.insert(p);
      }
      std::multiset<int64_t> want;
      for (int64_t p = 0; p < rows; ++p) want.insert(p);
      EXPECT_EQ(seen, want) << "world " << world << " rows " << rows;
    }
  }
}

TEST(BatchSplitTest, SharesAreNearEqualAndWorldOneKeepsTheOrder) {
  const std::vector<uint8_t> tokens = RandomRows(101, 8, 3);
  for (int rank = 0; rank < 2; ++rank) {
    const size_t n = RankRowsOfBatch(tokens.data(), 101, 8, 2, rank).size();
    EXPECT_TRUE(n == 50 || n == 51) << n;
  }
  const std::vector<int64_t> all = RankRowsOfBatch(tokens.data(), 101, 8, 1, 0);
  ASSERT_EQ(all.size(), 101u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

TEST(BatchSplitTest, RanksGetSortedChunksFromBothEnds) {
  // Rows are their own sort keys: 0..7 in reverse order.
  std::vector<uint8_t> tokens;
  for (int v = 7; v >= 0; --v) tokens.push_back(static_cast<uint8_t>(v));
  const auto value = [&](int64_t p) { return tokens[static_cast<size_t>(p)]; };
  std::vector<int> got0, got1;
  for (int64_t p : RankRowsOfBatch(tokens.data(), 8, 1, 2, 0)) got0.push_back(value(p));
  for (int64_t p : RankRowsOfBatch(tokens.data(), 8, 1, 2, 1)) got1.push_back(value(p));
  EXPECT_EQ(got0, (std::vector<int>{0, 1, 6, 7}));
  EXPECT_EQ(got1, (std::vector<int>{2, 3, 4, 5}));
}

TEST(BatchSplitTest, DependsOnlyOnTheRows) {
  const std::vector<uint8_t> tokens = RandomRows(64, 8, 11);
  EXPECT_EQ(RankRowsOfBatch(tokens.data(), 64, 8, 3, 1),
            RankRowsOfBatch(tokens.data(), 64, 8, 3, 1));
}

TEST(BatchSplitTest, LossScaleWeightsByShare) {
  EXPECT_EQ(RankLossScale(2048, 4096, 2), 1.0);
  EXPECT_DOUBLE_EQ(RankLossScale(51, 101, 2), 102.0 / 101.0);
  EXPECT_DOUBLE_EQ(RankLossScale(50, 101, 2) + RankLossScale(51, 101, 2), 2.0);
  EXPECT_EQ(RankLossScale(0, 0, 2), 0.0);
}

}  // namespace
}  // namespace petname::dist
