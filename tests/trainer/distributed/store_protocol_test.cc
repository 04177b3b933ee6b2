#include "trainer/distributed/store_protocol.h"

#include <gtest/gtest.h>

#include "trainer/distributed/peer_check.h"

namespace petname::dist::store {
namespace {

std::string Nonce() {
  std::string nonce;
  EXPECT_TRUE(NewNonce(&nonce).ok());
  return nonce;
}

// A server and a client session of one connection, the handshake run between them.
struct Pair {
  Pair(const std::string& server_secret, const std::string& client_secret)
      : server(server_secret, Nonce()), client(client_secret, Nonce()) {
    std::string hello, why;
    EXPECT_TRUE(client.Hello(server.Greeting(), &hello, &why)) << why;
    Request unused;
    event = server.Feed(&hello, &answer, &unused, &why);
    EXPECT_TRUE(hello.empty());
  }
  ServerSession server;
  ClientSession client;
  ServerSession::Event event = ServerSession::Event::kNeedMore;
  std::string answer;
};

TEST(StoreProtocolTest, RequestsAndRepliesRoundTrip) {
  Request request;
  request.op = Op::kCompareSet;
  request.keys = {std::string("k\0ey", 4)};
  request.expected = "old";
  request.value = std::string(kMaxValueBytes, 'v');
  request.number = -7;
  Request decoded;
  std::string why;
  ASSERT_TRUE(DecodeRequest(EncodeRequest(request), &decoded, &why)) << why;
  EXPECT_EQ(decoded.op, request.op);
  EXPECT_EQ(decoded.keys, request.keys);
  EXPECT_EQ(decoded.expected, request.expected);
  EXPECT_EQ(decoded.value, request.value);
  EXPECT_EQ(decoded.number, -7);

  const Reply reply{Code::kTimeout, "v", int64_t{1} << 40};
  Reply back;
  ASSERT_TRUE(DecodeReply(EncodeReply(reply), &back, &why)) << why;
  EXPECT_EQ(back.code, Code::kTimeout);
  EXPECT_EQ(back.value, "v");
  EXPECT_EQ(back.number, int64_t{1} << 40);
}

TEST(StoreProtocolTest, MalformedRequestsAreRefused) {
  Request wait;
  wait.op = Op::kWait;
  wait.keys = {"a", "b"};
  const std::string body = EncodeRequest(wait);
  Request out;
  std::string why;
  for (size_t cut = 0; cut < body.size(); ++cut) {
    EXPECT_FALSE(DecodeRequest(body.substr(0, cut), &out, &why)) << "cut at " << cut;
  }
  EXPECT_FALSE(DecodeRequest(body + "x", &out, &why)) << "a byte after the request";
  std::string unknown = body;
  unknown[0] = 9;
  EXPECT_FALSE(DecodeRequest(unknown, &out, &why));
  Request set;
  set.op = Op::kSet;
  set.keys = {"a", "b"};
  EXPECT_FALSE(DecodeRequest(EncodeRequest(set), &out, &why)) << "kSet of two keys";
  set.keys = {std::string(kMaxKeyBytes + 1, 'k')};
  EXPECT_FALSE(DecodeRequest(EncodeRequest(set), &out, &why)) << "a key over the limit";
  EXPECT_NE(why.find("a key over 4096 bytes"), std::string::npos) << why;
  set.keys = {"k"};
  set.value = std::string(kMaxValueBytes + 1, 'v');
  EXPECT_FALSE(DecodeRequest(EncodeRequest(set), &out, &why)) << "a value over the limit";
  wait.number = -1;
  EXPECT_FALSE(DecodeRequest(EncodeRequest(wait), &out, &why)) << "a negative timeout";
}

TEST(StoreProtocolTest, TheSameSecretAuthenticatesBothSidesAndSealsMessages) {
  for (const std::string secret : {"s3cret", ""}) {  // no secret: anyone can prove it
    Pair p(secret, secret);
    ASSERT_EQ(p.event, ServerSession::Event::kAuthenticated) << secret;
    ASSERT_EQ(p.client.Accept(p.answer), ClientSession::Answer::kProven);
    Request request;
    request.op = Op::kSet;
    request.keys = {"petname/peer/nonce/1"};
    request.value = "v";
    std::string wire = p.client.SealRequest(request);
    wire += p.client.SealRequest(request);
    Request got;
    std::string out, why;
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(p.server.Feed(&wire, &out, &got, &why), ServerSession::Event::kRequest) << why;
      EXPECT_EQ(got.keys, request.keys);
    }
    EXPECT_EQ(p.server.Feed(&wire, &out, &got, &why), ServerSession::Event::kNeedMore);
    std::string replies = p.server.SealReply(Reply{Code::kOk, "x", 3});
    Reply reply;
    ASSERT_EQ(p.client.OpenReply(&replies, &reply, &why), Channel::Result::kMessage) << why;
    EXPECT_EQ(reply.value, "x");
    EXPECT_TRUE(replies.empty());
  }
}

TEST(StoreProtocolTest, AnotherSecretIsRefusedAndTheClientIsToldSo) {
  Pair p("the-jobs", "a-strangers");
  EXPECT_EQ(p.event, ServerSession::Event::kRefused);
  EXPECT_FALSE(p.server.authenticated());
  EXPECT_EQ(p.answer.size(), kAnswerBytes);
  EXPECT_EQ(p.client.Accept(p.answer), ClientSession::Answer::kRefused);
}

TEST(StoreProtocolTest, APeerThatDoesNotProveTheSecretIsNotTrusted) {
  // A listener that passes for the store: it cannot compute the answer, nor reuse one.
  Pair real("s", "s");
  ClientSession client("s", Nonce());
  std::string hello, why;
  ServerSession fake("s", Nonce());
  ASSERT_TRUE(client.Hello(fake.Greeting(), &hello, &why));
  EXPECT_EQ(client.Accept(real.answer), ClientSession::Answer::kUnproven) << "replayed answer";
  EXPECT_EQ(client.Accept(std::string(kAnswerBytes, '0')), ClientSession::Answer::kUnproven);
  EXPECT_FALSE(client.Hello("GARBAGE", &hello, &why));
}

TEST(StoreProtocolTest, BytesThatDoNotOpenAHandshakeAreRefusedAtOnce) {
  // One zero byte; a c10d TCPStore SET of 1 GiB (21 bytes); the magic's first byte wrong.
  const std::string huge_set = std::string("\0", 1) + std::string("\x04\0\0\0\0\0\0\0", 8) +
                               "/abc" + std::string("\0\0\0\x40\0\0\0\0", 8);
  for (const std::string& garbage : {std::string(1, '\0'), huge_set, std::string("QNSTORE1")}) {
    ServerSession server("s", Nonce());
    std::string in = garbage, out, why;
    Request request;
    EXPECT_EQ(server.Feed(&in, &out, &request, &why), ServerSession::Event::kRefused);
    EXPECT_NE(why.find("do not open a petname store handshake"), std::string::npos) << why;
    EXPECT_TRUE(out.empty());
  }
  ServerSession server("s", Nonce());
  std::string in = "PNSTO", out, why;
  Request request;
  EXPECT_EQ(server.Feed(&in, &out, &request, &why), ServerSession::Event::kNeedMore);
}

TEST(StoreProtocolTest, AHugeDeclaredLengthIsRefusedFromItsFourBytes) {
  Pair p("s", "s");
  ASSERT_EQ(p.event, ServerSession::Event::kAuthenticated);
  std::string in("\xff\xff\xff\xff", 4), out, why;
  Request request;
  EXPECT_EQ(p.server.Feed(&in, &out, &request, &why), ServerSession::Event::kRefused);
  EXPECT_EQ(why, "it declared a message of 4294967295 bytes, over the limit of " +
                     std::to_string(kMaxBodyBytes));
}

TEST(StoreProtocolTest, AlteredReplayedOrForeignMessagesFailTheirMac) {
  Request request;
  request.op = Op::kGet;
  request.keys = {"k"};
  Pair p("s", "s");
  ASSERT_EQ(p.client.Accept(p.answer), ClientSession::Answer::kProven);
  Pair other("s", "s");
  ASSERT_EQ(other.client.Accept(other.answer), ClientSession::Answer::kProven);
  const std::string first = p.client.SealRequest(request);
  std::string altered = p.client.SealRequest(request);
  altered[kLengthBytes + 1] ^= 1;
  const std::string foreign = other.client.SealRequest(request);
  std::string in = first, out, why;
  Request got;
  ASSERT_EQ(p.server.Feed(&in, &out, &got, &why), ServerSession::Event::kRequest);
  for (const std::string& bad : {first, altered, foreign}) {  // message 1 expected each time
    in = bad;
    EXPECT_EQ(p.server.Feed(&in, &out, &got, &why), ServerSession::Event::kRefused);
    EXPECT_NE(why.find("MAC does not verify"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace petname::dist::store
