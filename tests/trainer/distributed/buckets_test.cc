#include "trainer/distributed/buckets.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace petname::dist {
namespace {

using Buckets = std::vector<std::vector<size_t>>;

TEST(BucketsTest, FillsInReverseRegistrationOrder) {
  EXPECT_EQ(AssignBuckets({10, 10, 10, 10}, 20), (Buckets{{3, 2}, {1, 0}}));
}

TEST(BucketsTest, OversizedParameterGetsItsOwnBucket) {
  EXPECT_EQ(AssignBuckets({5, 100, 5}, 20), (Buckets{{2, 1}, {0}}));
  EXPECT_EQ(AssignBuckets({100, 100}, 20), (Buckets{{1}, {0}}));
}

TEST(BucketsTest, HugeCapGivesOneBucket) {
  EXPECT_EQ(AssignBuckets({1, 2, 3}, SIZE_MAX), (Buckets{{2, 1, 0}}));
}

TEST(BucketsTest, EmptyInput) { EXPECT_TRUE(AssignBuckets({}, 10).empty()); }

TEST(BucketsTest, EveryParameterExactlyOnce) {
  std::vector<size_t> sizes;
  for (size_t i = 0; i < 50; ++i) sizes.push_back(i * 37 % 11 + 1);
  std::vector<int> count(sizes.size());
  for (const auto& b : AssignBuckets(sizes, 16)) {
    for (size_t i : b) ++count[i];
  }
  for (int c : count) EXPECT_EQ(c, 1);
}

std::vector<std::pair<int64_t, int64_t>> Ranges(const std::vector<FlatRange>& buckets) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const FlatRange& r : buckets) out.emplace_back(r.begin, r.end);
  return out;
}

TEST(FlatBucketsTest, ContiguousRangesFromTheEndWithTheExtraElementsInBucketZero) {
  // 4-byte elements, 60-byte cap: parameters 3+2 (10 + 5 elements), then 1+0.
  EXPECT_EQ(Ranges(FlatBuckets({4, 6, 5, 10}, 4, 60, 1)),
            (std::vector<std::pair<int64_t, int64_t>>{{10, 26}, {0, 10}}));
}

TEST(FlatBucketsTest, ARangeCoversEachElementOnce) {
  std::vector<int64_t> numels;
  int64_t total = 0;
  for (int64_t i = 0; i < 30; ++i) {
    numels.push_back(i * 13 % 7 + 1);
    total += numels.back();
  }
  const std::vector<FlatRange> buckets = FlatBuckets(numels, 4, 24, 1);
  std::vector<int> covered(static_cast<size_t>(total + 1));
  for (const FlatRange& r : buckets) {
    for (int64_t e = r.begin; e < r.end; ++e) ++covered[static_cast<size_t>(e)];
  }
  for (const int c : covered) EXPECT_EQ(c, 1);
  EXPECT_EQ(buckets.front().end, total + 1);
}

TEST(FlatBucketsTest, OneBucketWithAHugeCapAndNoneWithoutParameters) {
  EXPECT_EQ(Ranges(FlatBuckets({3, 4}, 4, SIZE_MAX, 1)),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 8}}));
  EXPECT_TRUE(FlatBuckets({}, 4, 16, 1).empty());
}

}  // namespace
}  // namespace petname::dist
