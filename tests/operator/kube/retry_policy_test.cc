#include "operator/kube/retry_policy.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kBackoff{400};

std::optional<milliseconds> Delay(const std::string& verb, int code,
                                  std::optional<seconds> retry_after = std::nullopt,
                                  int retries = 0) {
  return RetryDelay(Attempt{verb, code, retry_after, retries}, RetryPolicy{}, kBackoff);
}

TEST(RetryPolicyTest, TooManyRequestsIsRetriedForEveryVerbAfterTheServersDelay) {
  for (const char* verb : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
    EXPECT_EQ(Delay(verb, 429, seconds(3)), milliseconds(3000)) << verb;
    EXPECT_EQ(Delay(verb, 429), kBackoff) << verb;  // no Retry-After: our backoff
  }
}

TEST(RetryPolicyTest, ServerErrorsWithRetryAfterAreRetriedForEveryVerb) {
  EXPECT_EQ(Delay("POST", 503, seconds(1)), milliseconds(1000));
  EXPECT_EQ(Delay("PATCH", 500, seconds(2)), milliseconds(2000));
  EXPECT_EQ(Delay("POST", 504, seconds(0)), kBackoff);  // "Retry-After: 0": no hot loop
}

TEST(RetryPolicyTest, ServerErrorsWithoutRetryAfterAreRetriedOnlyForIdempotentVerbs) {
  for (int code : {500, 502, 503, 504}) {
    for (const char* verb : {"GET", "PUT", "DELETE"}) EXPECT_EQ(Delay(verb, code), kBackoff);
    EXPECT_EQ(Delay("POST", code), std::nullopt) << code;  // may have been applied
    EXPECT_EQ(Delay("PATCH", code), std::nullopt) << code;
  }
  EXPECT_EQ(Delay("GET", 501), std::nullopt);  // Not Implemented stays so
}

TEST(RetryPolicyTest, ConnectionErrorsAreRetriedOnlyForIdempotentVerbs) {
  EXPECT_EQ(Delay("GET", 0), kBackoff);
  EXPECT_EQ(Delay("DELETE", 0), kBackoff);
  EXPECT_EQ(Delay("POST", 0), std::nullopt);
}

TEST(RetryPolicyTest, OtherAnswersStand) {
  for (int code : {200, 201, 400, 403, 404, 409, 410, 422}) {
    EXPECT_EQ(Delay("POST", code, seconds(1)), std::nullopt) << code;
    EXPECT_EQ(Delay("GET", code), std::nullopt) << code;
  }
}

TEST(RetryPolicyTest, RetriesAreBoundedAndTheServersDelayCapped) {
  EXPECT_NE(Delay("POST", 429, seconds(1), 9), std::nullopt);
  EXPECT_EQ(Delay("POST", 429, seconds(1), 10), std::nullopt);  // client-go's maxRetries
  EXPECT_EQ(RetryDelay(Attempt{"GET", 503, std::nullopt, 0}, RetryPolicy{0, seconds(10)}, kBackoff),
            std::nullopt);
  EXPECT_EQ(Delay("GET", 429, seconds(3600)), milliseconds(10000));
}

TEST(RetryPolicyTest, IdempotentVerbs) {
  for (const char* verb : {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
    EXPECT_TRUE(IsIdempotent(verb));
  for (const char* verb : {"POST", "PATCH", "WATCH", ""}) EXPECT_FALSE(IsIdempotent(verb));
}

TEST(ParseRetryAfterTest, DelaySeconds) {
  seconds d{};
  ASSERT_TRUE(ParseRetryAfter("120", 0, &d));
  EXPECT_EQ(d, seconds(120));
  ASSERT_TRUE(ParseRetryAfter("0", 0, &d));
  EXPECT_EQ(d, seconds(0));
  for (const char* bad : {"", "-1", "1.5", " 1", "1s", "9999999999999999999999"}) {
    EXPECT_FALSE(ParseRetryAfter(bad, 0, &d)) << bad;
  }
}

TEST(ParseRetryAfterTest, HttpDatesInEveryFormRfc9110Allows) {
  const int64_t now = 784111767;  // Sun, 06 Nov 1994 08:49:27 GMT
  seconds d{};
  ASSERT_TRUE(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now, &d));
  EXPECT_EQ(d, seconds(10));
  ASSERT_TRUE(ParseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now, &d));
  EXPECT_EQ(d, seconds(10));
  ASSERT_TRUE(ParseRetryAfter("Sun Nov  6 08:49:37 1994", now, &d));
  EXPECT_EQ(d, seconds(10));
  ASSERT_TRUE(ParseRetryAfter("Sun, 06 Nov 1994 08:49:17 GMT", now, &d));  // in the past
  EXPECT_EQ(d, seconds(0));
  EXPECT_FALSE(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 CET", now, &d));
  EXPECT_FALSE(ParseRetryAfter("tomorrow", now, &d));
}

}  // namespace
}  // namespace petname::kube
