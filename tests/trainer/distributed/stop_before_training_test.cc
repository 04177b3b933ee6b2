// SIGTERM before training starts: a rank waiting at the rendezvous for peers that
// never come, with a rendezvous timeout of 600 s, exits 143 with one error line as soon as it
// is told to stop, instead of ignoring SIGTERM (as PID 1 of a container) until the timeout. The
// tests wait at most 120 s for the exit, far less than the 600 s timeout.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/test_paths.h"
#include "tests/trainer/launch/subprocess.h"

namespace petname {
namespace {

using testing::Subprocess;

#ifdef PETNAME_TEST_HAVE_GLOO
#define SKIP_WITHOUT_GLOO() (void)0
#else
#define SKIP_WITHOUT_GLOO() GTEST_SKIP() << "this build has no Gloo"
#endif

constexpr const char* kStopped = "petname: error: stopped by SIGTERM before training started\n";

// A non-blocking TCP socket bound to a free loopback port, listening when `listen`.
class Socket {
 public:
  explicit Socket(bool listen) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
        (!listen || ::listen(fd_, 16) == 0)) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~Socket() {
    for (int fd : accepted_) ::close(fd);
    ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int port() const { return port_; }

  // Accepts a pending connection (kept open, never answered); false when there is none.
  bool Accept() {
    const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) accepted_.push_back(fd);
    return fd >= 0;
  }

 private:
  int fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int port_ = 0;
  std::vector<int> accepted_;
};

// A loopback port nothing listens on (the socket bound to it is closed).
int UnusedPort() { return Socket(false).port(); }

// Whether process `pid` has a handler installed for SIGTERM (its SigCgt mask).
bool CatchesSigterm(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SigCgt:", 0) == 0) {
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return (mask >> (SIGTERM - 1) & 1) != 0;
    }
  }
  return false;
}

// The processes whose parent is `parent`.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const size_t comm_end = stat.rfind(')');
    if (comm_end == std::string::npos) continue;  // it has exited meanwhile
    std::istringstream fields(stat.substr(comm_end + 1));
    std::string state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) children.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return children;
}

// Polls `ready` every 20 ms for up to a minute; true once it holds.
template <typename Ready>
bool WaitUntil(Ready ready) {
  for (int i = 0; i < 3000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::vector<std::string> TrainArgs(int port, std::vector<std::string> extra) {
  std::vector<std::string> args = {testing::PetnameBin(),
                                   "train",
                                   "--data",
                                   testing::TestData(),
                                   "--max-names",
                                   "200",
                                   "--threads",
                                   "1",
                                   "--epochs",
                                   "1",
                                   "--master-addr",
                                   "127.0.0.1",
                                   "--master-port",
                                   std::to_string(port),
                                   "--rendezvous-timeout",
                                   "600",
                                   "--collective-timeout",
                                   "600"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Rank 1 of 2 whose master never comes retries the rendezvous (or is still loading its data);
// SIGTERM ends it at once.
TEST(StopBeforeTrainingTest, WorkerWaitingForItsMasterExits143) {
  SKIP_WITHOUT_GLOO();
  const int port = UnusedPort();
  ASSERT_NE(port, 0);
  Subprocess worker(TrainArgs(port, {"--world-size", "2", "--rank", "1"}), {});
  ASSERT_TRUE(WaitUntil([&] { return CatchesSigterm(worker.pid()); })) << worker.Output();
  ::kill(worker.pid(), SIGTERM);
  EXPECT_EQ(worker.Wait(std::chrono::seconds(120)), 143) << worker.Output();
  EXPECT_EQ(worker.Output(), kStopped);
}

// Rank 1 of 2 whose master accepts connections but never answers: once the test has accepted
// the worker's connection, the worker is inside the rendezvous (then in c10d's own wait, which
// no flag polling could cut short); SIGTERM ends it at once.
TEST(StopBeforeTrainingTest, WorkerInsideTheRendezvousExits143) {
  SKIP_WITHOUT_GLOO();
  Socket silent_master(true);
  ASSERT_NE(silent_master.port(), 0);
  Subprocess worker(TrainArgs(silent_master.port(), {"--world-size", "2", "--rank", "1"}), {});
  ASSERT_TRUE(WaitUntil([&] { return silent_master.Accept(); })) << worker.Output();
  ::kill(worker.pid(), SIGTERM);
  EXPECT_EQ(worker.Wait(std::chrono::seconds(120)), 143) << worker.Output();
  EXPECT_EQ(worker.Output(), kStopped);
}

// Rank 0 of 2 has loaded its data (its notes are out) and waits in c10d for a worker that
// never comes; SIGTERM ends it at once.
TEST(StopBeforeTrainingTest, MasterWaitingForItsWorkerExits143) {
  SKIP_WITHOUT_GLOO();
  const int port = UnusedPort();
  ASSERT_NE(port, 0);
  Subprocess master(TrainArgs(port, {"--world-size", "2", "--rank", "0"}), {});
  ASSERT_TRUE(WaitUntil([&] {
    return master.Output().find("petname: threads: ") != std::string::npos;
  })) << master.Output();
  ::kill(master.pid(), SIGTERM);
  EXPECT_EQ(master.Wait(std::chrono::seconds(120)), 143) << master.Output();
  const std::string out = master.Output();
  EXPECT_EQ(Count(out, "error"), 1u) << out;
  EXPECT_EQ(out.substr(out.size() - std::string(kStopped).size()), kStopped) << out;
}

// The local launcher of node 1 of 2 (`--nproc 2 --nnodes 2`): its ranks wait for node 0's
// master, which never comes. SIGTERM to the launcher reaches both, and each exits 143 with its
// one line.
TEST(StopBeforeTrainingTest, LauncherForwardsSigtermToRanksWaitingAtTheRendezvous) {
  SKIP_WITHOUT_GLOO();
  const int port = UnusedPort();
  ASSERT_NE(port, 0);
  Subprocess launcher(TrainArgs(port, {"--nproc", "2", "--nnodes", "2", "--node-rank", "1"}), {});
  ASSERT_TRUE(WaitUntil([&] {
    std::vector<pid_t> ranks = ChildrenOf(launcher.pid());
    return ranks.size() == 2 && CatchesSigterm(ranks[0]) && CatchesSigterm(ranks[1]);
  })) << launcher.Output();
  ::kill(launcher.pid(), SIGTERM);
  EXPECT_EQ(launcher.Wait(std::chrono::seconds(120)), 143) << launcher.Output();
  const std::string out = launcher.Output();
  EXPECT_EQ(Count(out, std::string("[rank 2] ") + kStopped), 1u) << out;
  EXPECT_EQ(Count(out, std::string("[rank 3] ") + kStopped), 1u) << out;
}

}  // namespace
}  // namespace petname
