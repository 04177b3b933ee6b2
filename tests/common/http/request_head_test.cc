// The pure request-head decisions behind HttpServer: where a head ends, what is refused with
// which status, what cpp-httplib is given, and which path a request is for.
#include "common/http/request_head.h"

#include <gtest/gtest.h>

#include <string>

namespace petname {
namespace {

constexpr size_t kMaxBytes = 8192;
constexpr size_t kMaxHeaders = 4;

HeadVerdict Screen(const std::string& head) {
  return ScreenRequestHead(head, kMaxBytes, kMaxHeaders);
}

TEST(RequestHeadLength, EndsAtTheFirstEmptyLine) {
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody\r\n\r\n"), 27u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\n\r\n"), 18u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\nHost: x\r\n"), 0u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\nHost: x\r\n\r"), 0u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r"), 0u);  // the LF may follow
  EXPECT_EQ(RequestHeadLength(""), 0u);
}

TEST(RequestHeadLength, AllOfItOnceALineEndIsNotCrlf) {
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\nHost"), 19u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\nHost: x\n\nRange: bytes=0-\r\n\r\n"), 44u);
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\nHost: x\rRange"), 29u);
  EXPECT_EQ(RequestHeadLength("\n"), 1u);
  // After the empty line comes a body, which is never read: its bytes do not count.
  EXPECT_EQ(RequestHeadLength("GET / HTTP/1.1\r\n\r\nx\ny"), 18u);
}

TEST(ScreenRequestHead, ForwardsTheRequestLineAloneWithoutAnyHeader) {
  const HeadVerdict v = Screen(
      "GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nAccept-Encoding: br\r\n"
      "Expect: 100-continue\r\n\r\n");
  EXPECT_EQ(v.status, 0) << v.reason;
  EXPECT_EQ(v.forwarded, "GET /metrics?x=1 HTTP/1.1\r\n\r\n");
  EXPECT_FALSE(v.head);
  const HeadVerdict head =
      Screen("HEAD / HTTP/1.0\r\nX-A:\t v\xff \t\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(head.status, 0) << head.reason;
  EXPECT_EQ(head.forwarded, "HEAD / HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(head.head);
}

TEST(ScreenRequestHead, RefusesALineEndThatIsNotCrlf) {
  for (const std::string head :
       {"GET / HTTP/1.1\r\nHost: x\n\nRange: bytes=0-,0-\r\n\r\n", "GET / HTTP/1.1\nHost: x\n\n",
        "GET / HTTP/1.1\r\nHost: x\rRange: bytes=0-\r\n\r\n", "GET / HTTP/1.1\r\nA: b\n\r\n",
        "GET / HTTP/1.1\r\r\n\r\n", "\nGET / HTTP/1.1\r\n\r\n"}) {
    const HeadVerdict v = Screen(head);
    EXPECT_EQ(v.status, 400) << head;
    EXPECT_EQ(v.reason, "a line of the request head does not end in CRLF");
    EXPECT_EQ(v.forwarded, "");
  }
}

TEST(ScreenRequestHead, RefusesMalformedHeaderLines) {
  for (const std::string head :
       {"GET / HTTP/1.1\r\nRange: bytes=0-0,\r\n 1-1\r\n\r\n",  // obs-fold
        "GET / HTTP/1.1\r\n\tRange: bytes=0-0\r\n\r\n",
        "GET / HTTP/1.1\r\nRange : bytes=0-\r\n\r\n", "GET / HTTP/1.1\r\nRange\t: bytes=0-\r\n\r\n",
        "GET / HTTP/1.1\r\nno colon\r\n\r\n", "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
        "GET / HTTP/1.1\r\nR(a)nge: x\r\n\r\n"}) {
    EXPECT_EQ(Screen(head).status, 400) << head;
  }
  const char nul[] = "GET / HTTP/1.1\r\nA: b\0c\r\n\r\n";
  EXPECT_EQ(Screen(std::string(nul, sizeof(nul) - 1)).reason,
            "a header value holds a control character");
  EXPECT_EQ(Screen("GET / HTTP/1.1\r\nA: b\x7f\r\n\r\n").status, 400);
}

TEST(ScreenRequestHead, RefusesAMalformedRequestLine) {
  for (const std::string head : {"GET /  HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n",
                                 "GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
                                 "GET /\x01 HTTP/1.1\r\n\r\n", "GET /\xc3\xa9 HTTP/1.1\r\n\r\n",
                                 "\r\nGET / HTTP/1.1\r\n\r\n", " GET / HTTP/1.1\r\n\r\n"}) {
    const HeadVerdict v = Screen(head);
    EXPECT_EQ(v.status, 400) << head;
    EXPECT_EQ(v.reason, "malformed request line") << head;
  }
}

TEST(ScreenRequestHead, RefusesAnUnfinishedOrOversizedHead) {
  EXPECT_EQ(Screen("GET / HTTP/1.1\r\nHost: x\r\n").reason, "request head without its empty line");
  EXPECT_EQ(Screen("").status, 400);
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(kMaxBytes, 'a') + "\r\n\r\n";
  EXPECT_EQ(Screen(big).reason, "request head over 8192 bytes");
}

TEST(ScreenRequestHead, RefusesTooManyHeadersAMethodOrABody) {
  std::string many = "GET / HTTP/1.1\r\n";
  for (size_t i = 0; i <= kMaxHeaders; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(Screen(many + "\r\n").status, 431);
  const HeadVerdict post = Screen("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(Screen("PRI * HTTP/1.1\r\n\r\n").status, 405);
  EXPECT_EQ(Screen("GET / HTTP/1.1\r\ncontent-length: 1\r\n\r\n").status, 413);
  EXPECT_EQ(Screen("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").status, 413);
  EXPECT_EQ(Screen("GET / HTTP/1.1\r\nContent-Length:  0 \r\n\r\n").status, 0);
  const HeadVerdict head = Screen("HEAD / HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
  EXPECT_EQ(head.status, 413);
  EXPECT_TRUE(head.head);
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
