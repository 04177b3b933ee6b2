#include "trainer/distributed/buckets.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace petname::dist
