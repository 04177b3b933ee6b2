#include "operator/kube/token_bucket.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

using std::chrono::milliseconds;
using Clock = TokenBucket::Clock;

TEST(TokenBucketTest, BurstIsFreeThenRequestsArePacedAtQps) {
  TokenBucket bucket(10, 3);
  Clock::time_point t = Clock::now() + milliseconds(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.Reserve(t), Clock::duration::zero());
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.Reserve(t)).count(), 100);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.Reserve(t)).count(), 200);
}

TEST(TokenBucketTest, TokensRefillOverTimeUpToTheBurst) {
  TokenBucket bucket(10, 2);
  Clock::time_point t = Clock::now() + milliseconds(1);
  bucket.Reserve(t);
  bucket.Reserve(t);
  t += std::chrono::seconds(10);  // would be 100 tokens without the cap
  EXPECT_EQ(bucket.Reserve(t), Clock::duration::zero());
  EXPECT_EQ(bucket.Reserve(t), Clock::duration::zero());
  EXPECT_GT(bucket.Reserve(t), Clock::duration::zero());
}

TEST(TokenBucketTest, ZeroQpsLiftsTheLimit) {
  TokenBucket bucket(0, 1);
  Clock::time_point t = Clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bucket.Reserve(t), Clock::duration::zero());
}

}  // namespace
}  // namespace petname::kube
