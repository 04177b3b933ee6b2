#include "trainer/fetch/attempt.h"

#include <gtest/gtest.h>

namespace petname::fetch {
namespace {

Attempt Failed(Failure f, long status = 0, std::string detail = "") {
  Attempt a;
  a.failure = f;
  a.http_status = status;
  a.detail = std::move(detail);
  return a;
}

TEST(ShouldRetry, TransientFailuresAreRetried) {
  EXPECT_TRUE(ShouldRetry(Failed(Failure::kConnect)));
  EXPECT_TRUE(ShouldRetry(Failed(Failure::kTimeout)));
  EXPECT_TRUE(ShouldRetry(Failed(Failure::kTransfer)));
  for (long status : {500L, 502L, 503L, 504L, 408L, 429L}) {
    EXPECT_TRUE(ShouldRetry(Failed(Failure::kHttpStatus, status))) << status;
  }
}

TEST(ShouldRetry, FinalFailuresAreNot) {
  for (long status : {400L, 401L, 403L, 404L, 410L}) {
    EXPECT_FALSE(ShouldRetry(Failed(Failure::kHttpStatus, status))) << status;
  }
  EXPECT_FALSE(ShouldRetry(Failed(Failure::kTls)));
  EXPECT_FALSE(ShouldRetry(Failed(Failure::kTooLarge)));
  EXPECT_FALSE(ShouldRetry(Failed(Failure::kLocal)));
  EXPECT_FALSE(ShouldRetry(Failed(Failure::kRedirect)));
  EXPECT_FALSE(ShouldRetry(Failed(Failure::kNone)));
}

TEST(DescribeFailure, NamesWhatFailedAndHowOften) {
  EXPECT_EQ(DescribeFailure(Failed(Failure::kConnect, 0, "Connection refused"), 3),
            "host unreachable after 3 attempts: Connection refused");
  EXPECT_EQ(DescribeFailure(Failed(Failure::kHttpStatus, 404, "returned error: 404"), 1),
            "HTTP 404");
  EXPECT_EQ(DescribeFailure(Failed(Failure::kHttpStatus, 503), 5), "HTTP 503 after 5 attempts");
  EXPECT_EQ(DescribeFailure(Failed(Failure::kTls, 0, "unable to get local issuer"), 1),
            "TLS failed: unable to get local issuer");
}

}  // namespace
}  // namespace petname::fetch
