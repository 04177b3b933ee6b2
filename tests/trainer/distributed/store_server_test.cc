// The rendezvous store's server and client over real loopback sockets (both in this process):
// what ranks do, and what a hostile peer does to it: garbage, a stalled handshake, another
// secret, a huge declared message, a flood of handshakes, a listener that passes for the store.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <thread>

#include "trainer/distributed/peer_check.h"
#include "trainer/distributed/store_client.h"
#include "trainer/distributed/store_server.h"

namespace petname::dist {
namespace {

using Clock = StoreClient::Clock;
using store::Code;
using store::MakeRequest;
using store::Op;
using store::Reply;
using store::Request;

// Generous: a verdict never depends on how fast this machine is, only a hang is cut off.
constexpr std::chrono::seconds kPatience(60);

// A TCP connection from `source` (a loopback address) to 127.0.0.1:port, or a listener.
class RawSocket {
 public:
  RawSocket() = default;
  RawSocket(int port, const char* source = "127.0.0.1") {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    inet_pton(AF_INET, source, &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0);
    EXPECT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &len);
    name_ = std::string(source) + ":" + std::to_string(ntohs(local.sin_port));
  }
  ~RawSocket() { close(fd_); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Reads until `n` bytes came, or the peer closed; false if it did neither within kPatience.
  bool Read(size_t n, std::string* got) {
    const auto deadline = Clock::now() + kPatience;
    char buf[4096];
    while (got->size() < n) {
      pollfd p{fd_, POLLIN, 0};
      if (Clock::now() > deadline || poll(&p, 1, 100) < 0) return false;
      if (p.revents == 0) continue;
      const ssize_t r = recv(fd_, buf, sizeof(buf), 0);
      if (r <= 0) return true;
      got->append(buf, static_cast<size_t>(r));
    }
    return true;
  }
  // True when the peer closed the connection (after whatever it sent) within kPatience.
  bool ClosedByPeer() {
    std::string all;
    return Read(SIZE_MAX, &all);
  }
  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

 private:
  int fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  std::string name_;
};

class StoreServerTest : public ::testing::Test {
 protected:
  void Start(StoreServerOptions options = {}) {
    options.secret = options.secret.empty() ? "s3cret" : options.secret;
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      log_ += line + "\n";
    };
    ASSERT_TRUE(StoreServer::Start(options, &server_).ok());
  }
  std::unique_ptr<StoreClient> Client(const std::string& secret = "s3cret") {
    std::unique_ptr<StoreClient> client;
    Status st = StoreClient::Connect("127.0.0.1", server_->port(), secret, Clock::now() + kPatience,
                                     &client);
    EXPECT_TRUE(st.ok()) << st.message();
    return client;
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(mutex_);
    return log_;
  }
  // Waits until the server has refused `count` connections.
  void AwaitRefusals(size_t count) {
    const auto deadline = Clock::now() + kPatience;
    while (server_->refusals().count < count && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(server_->refusals().count, count) << Log();
  }

  std::unique_ptr<StoreServer> server_;
  std::mutex mutex_;
  std::string log_;
};

Reply Call(StoreClient& client, const Request& request) {
  Reply reply;
  Status st = client.Call(request, Clock::now() + kPatience, &reply);
  EXPECT_TRUE(st.ok()) << st.message();
  return reply;
}

TEST_F(StoreServerTest, RanksSetGetAndWaitForEachOther) {
  Start();
  auto waiter = Client();
  auto setter = Client();
  Reply waited;
  std::thread wait([&] { waited = Call(*waiter, MakeRequest(Op::kWait, {"a", "b"})); });
  Call(*setter, MakeRequest(Op::kSet, {"a"}, "1"));
  Call(*setter, MakeRequest(Op::kSet, {"b"}, std::string(store::kMaxValueBytes, 'x')));
  wait.join();
  EXPECT_EQ(waited.code, Code::kOk);
  EXPECT_EQ(Call(*waiter, MakeRequest(Op::kGet, {"b"})).value.size(), store::kMaxValueBytes);
  EXPECT_EQ(Call(*waiter, MakeRequest(Op::kAdd, {"n"}, "", 2)).number, 2);
  EXPECT_EQ(Call(*waiter, MakeRequest(Op::kWait, {"never"}, "", 1)).code, Code::kTimeout);
  EXPECT_EQ(server_->refusals().count, 0u) << Log();
}

TEST_F(StoreServerTest, GarbageIsRefusedNamingItsAddressWhileRanksAreServed) {
  Start();
  RawSocket garbage(server_->port());
  garbage.Send(std::string(1, '\0'));
  auto rank = Client();
  Call(*rank, MakeRequest(Op::kSet, {"k"}, "v"));
  EXPECT_TRUE(garbage.ClosedByPeer());
  AwaitRefusals(1);
  EXPECT_EQ(server_->refusals().last_peer, garbage.name());
  EXPECT_EQ(Log(), "rendezvous store: refused the connection from " + garbage.name() +
                       ": it sent bytes that do not open a petname store handshake\n");
  EXPECT_EQ(Call(*rank, MakeRequest(Op::kGet, {"k"})).value, "v");
}

TEST_F(StoreServerTest, AStalledHandshakeIsClosedAtItsDeadlineAndHoldsNobodyUp) {
  StoreServerOptions options;
  options.handshake_timeout = std::chrono::milliseconds(200);
  Start(options);
  RawSocket stalled(server_->port());
  stalled.Send("PNS");
  auto rank = Client();  // served while the stalled one waits
  Call(*rank, MakeRequest(Op::kSet, {"k"}, "v"));
  EXPECT_TRUE(stalled.ClosedByPeer());
  AwaitRefusals(1);
  EXPECT_NE(Log().find(stalled.name() + ": no handshake within 0.20 s"), std::string::npos)
      << Log();
}

TEST_F(StoreServerTest, AnotherSecretIsRefusedAndToldSo) {
  Start();
  std::unique_ptr<StoreClient> stranger;
  Status st = StoreClient::Connect("127.0.0.1", server_->port(), "a-strangers",
                                   Clock::now() + kPatience, &stranger);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("refused this rank: its PETNAME_RENDEZVOUS_SECRET is not the one "
                              "rank 0 has"),
            std::string::npos)
      << st.message();
  AwaitRefusals(1);
  EXPECT_NE(Log().find("it did not prove the job's rendezvous secret"), std::string::npos);
}

TEST_F(StoreServerTest, AHugeDeclaredMessageAfterTheHandshakeIsRefused) {
  Start();
  RawSocket peer(server_->port());
  std::string greeting, hello, answer, why;
  ASSERT_TRUE(peer.Read(store::kGreetingBytes, &greeting));
  std::string nonce;
  ASSERT_TRUE(NewNonce(&nonce).ok());
  store::ClientSession session("s3cret", nonce);
  ASSERT_TRUE(session.Hello(greeting, &hello, &why)) << why;
  peer.Send(hello);
  ASSERT_TRUE(peer.Read(store::kAnswerBytes, &answer));
  ASSERT_EQ(session.Accept(answer), store::ClientSession::Answer::kProven);
  peer.Send("\xff\xff\xff\x7f");
  EXPECT_TRUE(peer.ClosedByPeer());
  AwaitRefusals(1);
  EXPECT_NE(Log().find("it declared a message of 2147483647 bytes"), std::string::npos) << Log();
}

TEST_F(StoreServerTest, AFloodOfHandshakesKeepsNoRankOut) {
  StoreServerOptions options;
  options.max_handshaking = 4;
  options.max_per_peer = 3;
  Start(options);
  // 127.0.0.2 holds its 3 handshakes; a 4th from it is closed at once.
  std::vector<std::unique_ptr<RawSocket>> flood;
  for (int i = 0; i < 4; ++i)
    flood.push_back(std::make_unique<RawSocket>(server_->port(), "127.0.0.2"));
  EXPECT_TRUE(flood[3]->ClosedByPeer());
  AwaitRefusals(1);
  EXPECT_NE(Log().find("more than 3 connections from its address are in their handshake"),
            std::string::npos)
      << Log();
  // 127.0.0.3 takes the last place in the handshake; the rank's connection makes room by closing
  // the oldest.
  RawSocket other(server_->port(), "127.0.0.3");
  auto rank = Client();
  Call(*rank, MakeRequest(Op::kSet, {"k"}, "v"));
  EXPECT_TRUE(flood[0]->ClosedByPeer());
  AwaitRefusals(2);
  EXPECT_EQ(server_->refusals().last_peer, flood[0]->name());
}

TEST_F(StoreServerTest, ABusyPortIsRefusedNamingIt) {
  Start();
  StoreServerOptions options;
  options.port = server_->port();
  std::unique_ptr<StoreServer> second;
  const Status st = StoreServer::Start(options, &second);
  EXPECT_EQ(st.code(), Status::Code::kUnavailable);
  EXPECT_EQ(st.message(),
            "cannot listen on port " + std::to_string(options.port) + ": Address already in use");
}

TEST_F(StoreServerTest, AListenerThatPassesForTheStoreIsNotTrusted) {
  RawSocket listener;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(listener.fd(), reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(listen(listener.fd(), 4), 0);
  getsockname(listener.fd(), reinterpret_cast<sockaddr*>(&addr), &len);
  std::thread fake([&] {
    const int fd = accept(listener.fd(), nullptr, nullptr);
    const std::string greeting = std::string(store::kMagic) + std::string(32, 'a');
    char hello[store::kHelloBytes];
    (void)!send(fd, greeting.data(), greeting.size(), MSG_NOSIGNAL);
    (void)!recv(fd, hello, sizeof(hello), MSG_WAITALL);
    const std::string answer(store::kAnswerBytes, 'b');
    (void)!send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    close(fd);
  });
  std::unique_ptr<StoreClient> client;
  Status st = StoreClient::Connect("127.0.0.1", ntohs(addr.sin_port), "s3cret",
                                   Clock::now() + kPatience, &client);
  fake.join();
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("did not prove the job's rendezvous secret"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace petname::dist
