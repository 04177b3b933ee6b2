// The metrics flags and `petname report` through the real binary: bad values are one-line
// usage errors, a busy port is a runtime error, and a trained (and resumed) run leaves a
// metrics.jsonl that `petname report` turns into an SVG.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "tests/common/http/raw_client.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/launch/subprocess.h"
#include "tests/trainer/launch/syscall_hold.h"
#include "trainer/launch/free_port.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::testing {
namespace {

void ExpectOneLineError(const RunResult& r, int exit_code, const std::string& needle) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "wanted \"" << needle << "\" in " << r.err;
}

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(MetricsCliTest, BadPortsAreUsageErrors) {
  ExpectOneLineError(RunPetname(With(SmallTrainArgs(1, ""), {"--metrics-port", "70000"})), 2,
                     "--metrics-port must be in [0, 65535]");
  ::setenv("PETNAME_METRICS_PORT", "ninety", 1);
  const RunResult r = RunPetname(SmallTrainArgs(1, ""));
  ::unsetenv("PETNAME_METRICS_PORT");
  ExpectOneLineError(r, 2, "PETNAME_METRICS_PORT must be a non-negative integer");
}

TEST(MetricsCliTest, BusyPortIsARuntimeError) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  ExpectOneLineError(RunPetname(With(SmallTrainArgs(1, ""),
                                     {"--metrics-port", port, "--metrics-address", "127.0.0.1"})),
                     1, "cannot serve metrics: cannot listen on 127.0.0.1:" + port);
  close(fd);
}

// The first scrape that answers already serves the run's facts. The run is held (SyscallHold)
// as it opens its data, before its device, model or rendezvous: its metrics server answers
// there, and petname_training_info carries the run's labels then, whatever the machine's speed
// (a GPU run spends seconds there, initialising CUDA and NCCL).
TEST(MetricsCliTest, TheFirstScrapeServesTheRunsFactsBeforeTheDataIsRead) {
  const int port = launch::FreeTcpPort();
  ASSERT_NE(port, 0);
  std::vector<std::string> args =
      With(SmallTrainArgs(1, ""),
           {"--metrics-port", std::to_string(port), "--metrics-address", "127.0.0.1"});
  args.insert(args.begin(), PetnameBin());
  Subprocess p(args, {}, Subprocess::Gated{});
  SyscallHold hold(&p);
  const std::string data = std::filesystem::absolute(TestData()).string();
  ASSERT_TRUE(hold.UntilOpen([&](const std::string& path, int) { return path == data; }))
      << hold.error() << "\n"
      << p.Output();
  const std::string body = Body(Exchange(port, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n"));
  hold.Release();
  EXPECT_EQ(p.Wait(), 0) << p.Output();
  for (const char* series :
       {"petname_training_info{job=\"petname\",namespace=\"default\",rank=\"0\",backend=\"gloo\","
        "device=\"cpu\",precision=\"fp32\",version=",
        "petname_world_size{job=\"petname\",namespace=\"default\",rank=\"0\"} 1",
        "petname_epochs_planned{job=\"petname\",namespace=\"default\",rank=\"0\"} 1",
        "petname_train_steps_total{job=\"petname\",namespace=\"default\",rank=\"0\"} 0"}) {
    EXPECT_NE(body.find(series), std::string::npos) << series << " in:\n" << body;
  }
}

// --termination-log gets rank 0's final progress series, with no /metrics server running.
TEST(MetricsCliTest, TerminationLogHoldsTheFinalEpoch) {
  TempDir dir;
  const std::string path = dir.Join("termination-log");
  const RunResult r = RunPetname(With(SmallTrainArgs(2, ""), {"--termination-log", path}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text;
  ASSERT_TRUE(ReadFile(path, &text).ok());
  EXPECT_NE(text.find("\npetname_epoch{"), std::string::npos) << text;
  EXPECT_NE(text.find("} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("petname_validation_loss{"), std::string::npos) << text;
  EXPECT_EQ(text.find("process_"), std::string::npos) << text;
}

TEST(MetricsCliTest, ResumedRunLogsEveryEpochAndReportRendersIt) {
  TempDir dir;
  const std::string ckpt = dir.Join("ckpt");
  ExpectOneLineError(RunPetname({"report", "--checkpoint", ckpt}), 1, "does not exist");

  ASSERT_EQ(RunPetname(SmallTrainArgs(2, ckpt)).exit_code, 0);
  ASSERT_EQ(RunPetname(With(SmallTrainArgs(3, ckpt), {"--resume"})).exit_code, 0);

  std::vector<metrics::EpochRecord> records;
  ASSERT_TRUE(metrics::ReadMetricsLog(ckpt + "/metrics.jsonl", &records).ok());
  ASSERT_EQ(records.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(records[i].epoch, i + 1);
  EXPECT_EQ(records[1].restarts, 0);
  EXPECT_EQ(records[2].restarts, 1);
  EXPECT_GT(records[2].elapsed_seconds, records[1].elapsed_seconds);
  EXPECT_GT(records[2].samples, 0);

  const RunResult r = RunPetname({"report", "--checkpoint", ckpt});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ckpt + "/loss.svg\n");
  std::string svg;
  ASSERT_TRUE(ReadFile(ckpt + "/loss.svg", &svg).ok());
  EXPECT_NE(svg.find("3 epochs"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace petname::testing
