// Input another user or tenant controls, through the real binary: the trainer's /metrics
// against the corpus of hostile request heads; sweep YAML whose aliases form a cycle or a
// billion laughs; a CSV record of 16 Mi commas; a 3 GiB sparse rank log; a FIFO or a symbolic
// link as the Katib metrics file; waits so long they overflowed. Each is refused with one error
// line and its exit code, never a crash, and (a time limit ends a run that hangs) with a peak
// resident memory of a few hundred MiB: a `petname train` of 200 names takes about 190 MiB, the
// hostile files took 1 GB and more before they were bounded. Each run is held to 8 GiB of
// address space and 1 MiB of output, so that one that is not bounded fails without taking the
// machine's memory or disk.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "tests/common/http/hostile_requests.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/launch/subprocess.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

// How far above a plain usage error's peak resident memory a refusal may go (the builds' own
// start-up differs: LibTorch 2.x with its CUDA libraries starts near 480 MB, 1.13 near 170 MB).
constexpr int64_t kMemoryMargin = int64_t{200} << 20;
constexpr std::chrono::seconds kLimit(120);  // a run still going by then is hanging

struct Ended {
  int code = -1;  // -1: killed at kLimit
  std::string output;
  int64_t peak_rss_bytes = 0;
};

Ended RunUntilEnd(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/bash", "-c",
                                   "ulimit -v 8388608 -f 1024; exec \"$0\" \"$@\"", PetnameBin()};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess p(argv, {});
  Ended e;
  e.code = p.Wait(kLimit);
  e.output = p.Output();
  e.peak_rss_bytes = p.peak_rss_bytes();
  return e;
}

// The peak resident memory of `petname train --epochs nope` (a usage error), plus kMemoryMargin.
int64_t MemoryBound() {
  static const int64_t bound = [] {
    const Ended plain = RunUntilEnd({"train", "--epochs", "nope"});
    EXPECT_EQ(plain.code, 2) << plain.output;
    return plain.peak_rss_bytes + kMemoryMargin;
  }();
  return bound;
}

// The run exited with `code` and one error line, its last, holding `needle`, within
// MemoryBound().
void ExpectRefused(const Ended& e, int code, const std::string& needle) {
  EXPECT_EQ(e.code, code) << e.output;
  EXPECT_LT(e.peak_rss_bytes, MemoryBound());
  const size_t last = e.output.rfind('\n', e.output.size() - 2);
  const std::string line = e.output.substr(last == std::string::npos ? 0 : last + 1);
  EXPECT_EQ(line.rfind("petname: error: ", 0), 0u) << e.output;
  EXPECT_EQ(e.output.find("error"), e.output.find("petname: error: ") + 9) << e.output;
  EXPECT_NE(line.find(needle), std::string::npos) << "wanted \"" << needle << "\" in " << e.output;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A training run's /metrics: a bare LF before a Range of 2,000 ranges and the other malformed
// heads get 400, 2,000 ranges and Accept-Encoding br or gzip the plain exposition once.
TEST(HostileInputTest, TheTrainersMetricsRefuseOrAnswerTheHostileHeadsOnce) {
  const int port = FreePort();
  std::vector<std::string> args = SmallTrainArgs(100000, "");
  args.insert(args.begin(), PetnameBin());
  args.insert(args.end(),
              {"--metrics-port", std::to_string(port), "--metrics-address", "127.0.0.1"});
  Subprocess trainer(args, {});
  std::string output;
  EXPECT_EQ(RunHostileRequests(port, {"/metrics"}, &output, 120), 0) << output;
}

TEST(HostileInputTest, SweepYamlAliasesAreRefusedAtTheirBudget) {
  TempDir dir;
  const std::string corpus = SourcePath("tests/trainer/sweep/hostile/");
  const std::pair<const char*, const char*> cases[] = {
      {"alias_cycle.yaml",
       "sweep file: YAML error at line 1: an alias inside the node it refers "
       "to (a cycle)"},
      {"billion_laughs.yaml",
       "sweep file: YAML error at line 6: aliases expand to more than 10000 values"},
  };
  for (const auto& [file, line] : cases) {
    SCOPED_TRACE(file);
    ExpectRefused(RunUntilEnd({"sweep", "--config", corpus + file, "--dir", dir.Join("runs"),
                               "--data", TestData()}),
                  2, line);
  }
  EXPECT_FALSE(fs::exists(dir.Join("runs")));
}

// The header, then one record of 16 Mi commas, gzip-compressed to a few KB.
TEST(HostileInputTest, ACsvRecordOfCommasIsRefusedAtTheFieldBound) {
  TempDir dir;
  const std::string csv = dir.Join("commas.csv");
  std::ofstream(csv) << "Animal's Name\n" << std::string(size_t{16} << 20, ',') << "\n";
  ASSERT_EQ(std::system(("gzip '" + csv + "'").c_str()), 0);
  ExpectRefused(RunUntilEnd({"train", "--data", csv + ".gz", "--epochs", "1"}), 2,
                "data file " + csv + ".gz: line 2: a record of more than 1024 fields");
}

// A rank log is never larger than the writer's bounds (log_cap.h); a planted 3 GiB sparse file
// is refused unread.
TEST(HostileInputTest, APlantedHugeRankLogIsRefusedUnread) {
  TempDir dir;
  fs::create_directories(dir.Join("logs/attempt-0"));
  const std::string log = dir.Join("logs/attempt-0/rank-0.log");
  std::ofstream(log).close();
  fs::resize_file(log, uintmax_t{3} << 30);
  ExpectRefused(RunUntilEnd({"logs", "--checkpoint-dir", dir.path(), "--rank", "0"}), 1,
                "rank log " + log + " has 3221225472 bytes, more than a kept log's bound of");
}

// A FIFO without a reader would block the open for ever; a symbolic link would be followed to
// whatever it names. Both are refused before training.
TEST(HostileInputTest, AFifoOrASymlinkAsTheKatibMetricsFileIsRefused) {
  TempDir dir;
  const std::string fifo = dir.Join("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> args = SmallTrainArgs(1, "");
  args.insert(args.end(), {"--katib-metrics-file", fifo});
  ExpectRefused(RunUntilEnd(args), 2, "the Katib metrics file " + fifo + " is not a regular file");
  const std::string target = dir.Join("target");
  ASSERT_TRUE(WriteFile(target, "kept\n").ok());
  const std::string link = dir.Join("link.json");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  args.back() = link;
  ExpectRefused(RunUntilEnd(args), 2, "the Katib metrics file " + link + " is a symbolic link");
  std::string text;
  ASSERT_TRUE(ReadFile(target, &text).ok());
  EXPECT_EQ(text, "kept\n");
}

// 1e300 s overflowed to a rendezvous that "timed out after 0 s". Refused as the flags are
// parsed, so a launcher of several ranks starts none; the bounds themselves are taken.
TEST(HostileInputTest, WaitsOutOfRangeAreUsageErrors) {
  std::vector<std::vector<std::string>> refused;
  for (const char* value : {"1e300", "inf", "nan", "604801", "0", "1e-9", "-1"}) {
    refused.push_back({std::string("--rendezvous-timeout=") + value});
  }
  refused.push_back({"--collective-timeout=1e300"});
  refused.push_back({"--rendezvous-timeout=1e300", "--nproc", "2"});
  refused.push_back({"--collective-timeout=1e300", "--nproc", "2"});
  for (const std::vector<std::string>& flags : refused) {
    SCOPED_TRACE(flags[0]);
    std::vector<std::string> args = SmallTrainArgs(1, "");
    args.insert(args.end(), flags.begin(), flags.end());
    const std::string flag = flags[0].substr(0, flags[0].find('='));
    ExpectRefused(RunUntilEnd(args), 2,
                  flag + ": must be a number of seconds from 0.001 to 604800 (7 days)");
  }
  std::vector<std::string> bounds = SmallTrainArgs(1, "");
  bounds.insert(bounds.end(), {"--rendezvous-timeout", "604800", "--collective-timeout", "0.001"});
  const Ended taken = RunUntilEnd(bounds);
  EXPECT_EQ(taken.code, 0) << taken.output;
}

}  // namespace
}  // namespace petname::testing
