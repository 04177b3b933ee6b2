// The pure request-head decisions behind HttpServer: which header lines are dropped before
// cpp-httplib reads a head, and which path a request is for.
#include "common/http/request_head.h"

#include <gtest/gtest.h>

#include <string>

namespace petname {
namespace {

TEST(WithoutRangeHeaders, DropsRangeAndIfRangeWhateverTheirCase) {
  EXPECT_EQ(WithoutRangeHeaders("GET /metrics HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,2-3\r\n"
                                "rAnGe: bytes=4-5\r\nIF-RANGE: \"etag\"\r\nAccept: */*\r\n\r\n"),
            "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
}

TEST(WithoutRangeHeaders, DropsANameFollowedBySpaceBeforeTheColon) {
  EXPECT_EQ(WithoutRangeHeaders("GET / HTTP/1.1\r\nRange \t: bytes=0-1\r\n\r\n"),
            "GET / HTTP/1.1\r\n\r\n");
}

TEST(WithoutRangeHeaders, DropsTheContinuationLinesOfADroppedHeaderOnly) {
  EXPECT_EQ(WithoutRangeHeaders("GET / HTTP/1.1\r\nRange: bytes=0-1,\r\n 2-3,\r\n\t4-5\r\n"
                                "X-Long: a\r\n b\r\n\r\n"),
            "GET / HTTP/1.1\r\nX-Long: a\r\n b\r\n\r\n");
}

TEST(WithoutRangeHeaders, KeepsHeadersThatOnlyMentionRange) {
  const std::string head =
      "GET /range HTTP/1.1\r\nX-Range: bytes=0-1\r\nRanges: 1\r\nAccept: range\r\n"
      "User-Agent: Range: bytes=0-1\r\n\r\n";
  EXPECT_EQ(WithoutRangeHeaders(head), head);
}

TEST(WithoutRangeHeaders, NeverTouchesTheRequestLine) {
  const std::string head = "Range: / HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_EQ(WithoutRangeHeaders(head), head);
}

TEST(WithoutRangeHeaders, KeepsWhatFollowsTheBlankLine) {
  EXPECT_EQ(WithoutRangeHeaders("GET / HTTP/1.1\r\nRange: bytes=0-1\r\n\r\nRange: bytes=0-1\r\n"),
            "GET / HTTP/1.1\r\n\r\nRange: bytes=0-1\r\n");
}

TEST(WithoutRangeHeaders, HandlesBareNewlinesAndAHeadCutOff) {
  EXPECT_EQ(WithoutRangeHeaders("GET / HTTP/1.1\nRange: bytes=0-1\nHost: x\n\n"),
            "GET / HTTP/1.1\nHost: x\n\n");
  EXPECT_EQ(WithoutRangeHeaders("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,2-"),
            "GET / HTTP/1.1\r\nHost: x\r\n");
  EXPECT_EQ(WithoutRangeHeaders(""), "");
  EXPECT_EQ(WithoutRangeHeaders("GET / HTT"), "GET / HTT");
}

TEST(RequestPath, IsTheTargetWithoutQueryOrFragment) {
  EXPECT_EQ(RequestPath("GET /healthz HTTP/1.1\r\n\r\n"), "/healthz");
  EXPECT_EQ(RequestPath("HEAD /readyz?verbose=1 HTTP/1.1\r\nHost: x\r\n\r\n"), "/readyz");
  EXPECT_EQ(RequestPath("GET /metrics#x HTTP/1.0\n\n"), "/metrics");
  EXPECT_EQ(RequestPath("GET /heal%74hz HTTP/1.1\r\n\r\n"), "/heal%74hz");
}

TEST(RequestPath, IsEmptyWithoutACompleteRequestLineOrAPath) {
  EXPECT_EQ(RequestPath("GET /healthz HTTP/1.1"), "");
  EXPECT_EQ(RequestPath("GET /healthz\r\n\r\n"), "");
  EXPECT_EQ(RequestPath("GET\r\nHost: a b\r\n\r\n"), "");
  EXPECT_EQ(RequestPath("GET http://x/healthz HTTP/1.1\r\n\r\n"), "");
  EXPECT_EQ(RequestPath("OPTIONS * HTTP/1.1\r\n\r\n"), "");
  EXPECT_EQ(RequestPath(""), "");
}

}  // namespace
}  // namespace petname
