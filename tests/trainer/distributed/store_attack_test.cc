// Attacks on the rendezvous store of real ranks: two `petname train` processes started by hand
// (as two pods of a job), and an intruder that reaches MASTER_PORT without the job's secret and
// speaks c10d's TCPStore protocol (LibTorch 1.13's, what the ranks met through before). Each
// attack is planted while rank 0 waits for rank 1: a nonce key planted before rank 1 comes, one
// zero byte, a SET declaring 1 GiB, a GET of rank 0's nonce, and the Gloo bootstrap keys
// written over and over from before rank 1 comes until the job ends. The job trains every time,
// and rank 0 names the intruder's address; nothing waits on the intruder.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/temp_dir.h"
#include "tests/trainer/distributed/small_run.h"
#include "tests/trainer/launch/subprocess.h"
#include "trainer/launch/free_port.h"
#include "trainer/launch/launcher.h"

namespace petname {
namespace {

namespace fs = std::filesystem;
using testing::Subprocess;
using Clock = std::chrono::steady_clock;

// The ranks give up on the rendezvous after this (a store an attack froze fails them then).
constexpr int kRendezvousTimeoutS = 60;
// How long a rank may take in all; far more than the rendezvous timeout, so a hang is cut off
// and reported, never waited for.
constexpr std::chrono::seconds kRankLimit(240);

std::string U64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// LibTorch 1.13 TCPStore requests: a query type, then each string as a 64-bit length and bytes.
std::string TcpStoreSet(const std::string& key, const std::string& value) {
  return std::string(1, '\0') + U64(key.size()) + key + U64(value.size()) + value;
}
std::string TcpStoreWait(const std::string& key) {
  return std::string(1, '\x05') + U64(1) + U64(key.size()) + key;
}
std::string TcpStoreGet(const std::string& key) {
  return std::string(1, '\x02') + U64(key.size()) + key;
}
const std::string kTcpStoreNumKeys(1, '\x06');

// Whether `answer` is TCPStore's answer to kTcpStoreNumKeys (a 64-bit count, here under 256).
bool IsTcpStoreCount(const std::string& answer) {
  return answer.size() == 8 && answer.substr(1) == std::string(7, '\0');
}

// A process without the secret that connected to MASTER_PORT.
class Intruder {
 public:
  explicit Intruder(int port) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0;
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &len);
    name_ = "127.0.0.1:" + std::to_string(ntohs(local.sin_port));
  }
  ~Intruder() { close(fd_); }
  Intruder(const Intruder&) = delete;
  Intruder& operator=(const Intruder&) = delete;

  bool connected() const { return connected_; }
  const std::string& name() const { return name_; }
  void Send(const std::string& bytes) {
    (void)!send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // Up to `n` bytes: fewer when the store closed the connection or kept silent for `patience`.
  std::string Read(size_t n, std::chrono::seconds patience = std::chrono::seconds(60)) {
    std::string got;
    char buf[4096];
    const auto deadline = Clock::now() + patience;
    while (got.size() < n && Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const ssize_t r = recv(fd_, buf, std::min(sizeof(buf), n - got.size()), 0);
      if (r <= 0) break;
      got.append(buf, static_cast<size_t>(r));
    }
    return got;
  }

 private:
  int fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool connected_ = false;
  std::string name_;
};

class StoreAttackTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef PETNAME_TEST_HAVE_GLOO
    GTEST_SKIP() << "this build has no Gloo";
#endif
  }

  // Starts rank `r` of a world of 2 with the job's secret (none when empty).
  void StartRank(int r, const std::string& secret = "the-jobs-secret") {
    std::vector<std::string> args = testing::SmallRunArgs(1);
    args.insert(args.end(),
                {"--rendezvous-timeout", std::to_string(kRendezvousTimeoutS), "--summary-json",
                 (dir_ / ("rank" + std::to_string(r) + ".json")).string()});
    std::map<std::string, std::string> env = {{"MASTER_ADDR", "127.0.0.1"},
                                              {"MASTER_PORT", std::to_string(port_)},
                                              {"WORLD_SIZE", "2"},
                                              {"RANK", std::to_string(r)}};
    if (!secret.empty()) env["PETNAME_RENDEZVOUS_SECRET"] = secret;
    rank_[r] = std::make_unique<Subprocess>(args, env);
  }

  // Waits until rank 0's store accepts connections.
  void AwaitStore() {
    for (int i = 0; i < 3000 && !Intruder(port_).connected(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(Intruder(port_).connected()) << rank_[0]->Output();
  }

  // Waits for both ranks; both must have trained their epoch.
  void ExpectTheJobTrains() {
    for (int r = 0; r < 2; ++r) {
      code_[r] = rank_[r]->Wait(kRankLimit);
      out_[r] = rank_[r]->Output();
    }
    for (int r = 0; r < 2; ++r) EXPECT_EQ(code_[r], 0) << "rank " << r << ":\n" << out_[r];
    EXPECT_NE(out_[0].find("epoch 1/1"), std::string::npos) << out_[0];
  }

  void ExpectRefused(const Intruder& intruder, const std::string& why) {
    EXPECT_NE(out_[0].find("petname: warning: rendezvous store: refused the connection from " +
                           intruder.name() + ": " + why),
              std::string::npos)
        << out_[0];
  }

  petname::testing::TempDir tmp_;
  fs::path dir_ = tmp_.fs_path();
  int port_ = launch::FreeTcpPort();
  std::unique_ptr<Subprocess> rank_[2];
  int code_[2] = {-1, -1};
  std::string out_[2];
};

constexpr const char* kNotAHandshake = "it sent bytes that do not open a petname store handshake";

TEST_F(StoreAttackTest, APlantedNonceKeyNeitherReachesTheStoreNorStopsTheJob) {
  StartRank(0);
  AwaitStore();
  Intruder intruder(port_);
  intruder.Send(TcpStoreSet("/petname/peer/nonce/1", std::string(32, 'a')));
  intruder.Send(kTcpStoreNumKeys);
  // LibTorch 1.13's store took the key and answered the count of keys.
  EXPECT_FALSE(IsTcpStoreCount(intruder.Read(8))) << "the store took the planted key";
  StartRank(1);
  ExpectTheJobTrains();
  ExpectRefused(intruder, kNotAHandshake);
}

TEST_F(StoreAttackTest, OneZeroByteDoesNotFreezeTheStore) {
  StartRank(0);
  AwaitStore();
  Intruder intruder(port_);
  intruder.Send(std::string(1, '\0'));  // and stays connected until the job ends
  StartRank(1);
  ExpectTheJobTrains();
  ExpectRefused(intruder, kNotAHandshake);
}

TEST_F(StoreAttackTest, ASetDeclaringOneGibibyteAllocatesNothing) {
  StartRank(0);
  AwaitStore();
  Intruder intruder(port_);
  intruder.Send(std::string(1, '\0') + U64(4) + "/abc" + U64(uint64_t{1} << 30));  // 21 bytes
  StartRank(1);
  ExpectTheJobTrains();
  ExpectRefused(intruder, kNotAHandshake);
  std::ifstream in(dir_ / "rank0.json");
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(summary.contains("peak_rss_bytes")) << out_[0];
  EXPECT_LT(summary["peak_rss_bytes"].get<int64_t>(), int64_t{1} << 30)
      << "rank 0 held the declared value";
}

TEST_F(StoreAttackTest, NobodyWithoutTheSecretReadsTheNonces) {
  StartRank(0);
  AwaitStore();
  Intruder intruder(port_);
  intruder.Send(TcpStoreWait("/petname/peer/nonce/0") + TcpStoreGet("/petname/peer/nonce/0"));
  // LibTorch 1.13's store answered: 0 (the key exists), then the nonce's length and its 32 hex
  // digits.
  const std::string answer = intruder.Read(1 + 8 + 32);
  EXPECT_NE(answer.substr(0, 9), std::string(1, '\0') + U64(32))
      << "the intruder read rank 0's nonce: " << answer.substr(9);
  StartRank(1);
  ExpectTheJobTrains();
  ExpectRefused(intruder, kNotAHandshake);
}

// Gloo's full-mesh bootstrap (LibTorch 1.13): rank R publishes its pairs' addresses under
// "/0/R" (device 0, TCPStore's "/" prefix) and reads the others'.
TEST_F(StoreAttackTest, BootstrapKeysWrittenOverAndOverFromOutsideDoNotReachTheRanks) {
  StartRank(0);
  AwaitStore();
  std::atomic<bool> stop{false};
  std::atomic<int> attempts{0};
  std::string first;
  // One connection, writing as fast as the store answers; a new one (after a pause) whenever the
  // store closes it.
  std::thread writer([&] {
    while (!stop) {
      Intruder intruder(port_);
      if (attempts++ == 0) first = intruder.name();
      const std::string write =
          TcpStoreSet("/0/0", "x") + TcpStoreSet("/0/1", "x") + kTcpStoreNumKeys;
      do {
        intruder.Send(write);
      } while (!stop && IsTcpStoreCount(intruder.Read(8, std::chrono::seconds(5))));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  while (attempts < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  StartRank(1);
  for (int r = 0; r < 2; ++r) {
    code_[r] = rank_[r]->Wait(kRankLimit);
    out_[r] = rank_[r]->Output();
  }
  stop = true;
  writer.join();
  for (int r = 0; r < 2; ++r) EXPECT_EQ(code_[r], 0) << "rank " << r << ":\n" << out_[r];
  EXPECT_NE(out_[0].find("refused the connection from " + first + ": " + kNotAHandshake),
            std::string::npos)
      << out_[0];
}

// Ranks started by hand without a secret meet as before: rank 0 warns that anyone who reaches
// the port can join.
TEST_F(StoreAttackTest, WithoutASecretRanksStillTrainAndRankZeroWarns) {
  StartRank(0, "");
  StartRank(1, "");
  ExpectTheJobTrains();
  EXPECT_NE(out_[0].find("petname: warning: rendezvous is not authenticated"), std::string::npos)
      << out_[0];
}

}  // namespace
}  // namespace petname
