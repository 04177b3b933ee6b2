// `petname train` as real data-parallel ranks: the local launcher, rank-0-only output,
// preemption (SIGTERM -> checkpoint -> 143 -> resume to the same parameters), resuming on
// another world size, a killed rank, a stopped rank, bad rank environments, and ranks that
// check each other at rendezvous (other settings, another secret).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/distributed/small_run.h"
#include "tests/trainer/launch/subprocess.h"
#include "tests/trainer/launch/syscall_hold.h"
#include "trainer/checkpoint/store.h"
#include "trainer/launch/free_port.h"

namespace petname {
namespace {

namespace fs = std::filesystem;
using testing::RunProcess;
using testing::Subprocess;

class TrainDistTest : public ::testing::Test {
 protected:
  // SmallRunArgs(epochs) on `nproc` ranks of the local launcher.
  std::vector<std::string> Args(int nproc, int epochs, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = testing::SmallRunArgs(epochs);
    args.insert(args.end(), {"--nproc", std::to_string(nproc)});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  nlohmann::json Summary(const std::string& name) {
    std::ifstream in(dir_ / name);
    return nlohmann::json::parse(in, nullptr, false);
  }

  // Waits until the process has written `text` (or exited); true when it has.
  static bool WaitForOutput(Subprocess& p, const std::string& text) {
    for (int i = 0; i < 6000; ++i) {
      if (p.Output().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // SIGTERM once epoch 1 of 3 is done on two ranks: both stop at one step of epoch 2, rank 0
  // checkpoints, the launcher exits 143, and resuming ends with the parameters of a run that
  // never stopped. The run is held (SyscallHold) as rank 0 starts writing the checkpoint of
  // epoch 1, and the signal goes to rank 0 and to the launcher (which forwards it to both ranks)
  // before either trains on: rank 0's stop vote is in the first step of epoch 2, so the stop
  // lands inside the run however fast the machine is.
  void ExpectSigtermResumesExactly(const std::vector<std::string>& extra) {
    const std::string ckpt = (dir_ / "ckpt").string();
    auto args = [&](std::vector<std::string> more) {
      more.insert(more.end(), extra.begin(), extra.end());
      return Args(2, 3, more);
    };
    std::string out;
    ASSERT_EQ(RunProcess(args({"--summary-json", (dir_ / "full.json").string()}), {}, &out), 0)
        << out;

    Subprocess run(args({"--checkpoint-dir", ckpt}), {}, Subprocess::Gated{});
    testing::SyscallHold hold(&run);
    const std::string staging = ckpt + "/.staging-epoch-000001-";
    ASSERT_TRUE(hold.UntilOpen([&](const std::string& path, int) {
      return path.rfind(staging, 0) == 0;
    })) << hold.error()
        << "\n"
        << run.Output();
    ASSERT_EQ(kill(hold.held(), SIGTERM), 0);
    ASSERT_EQ(kill(run.pid(), SIGTERM), 0);
    hold.Release();
    EXPECT_EQ(run.Wait(), 143) << run.Output();
    EXPECT_NE(run.Output().find("[rank 0] petname: stopping on SIGTERM after step "),
              std::string::npos)
        << run.Output();

    std::vector<std::string> skipped;
    std::string newest;
    checkpoint::Manifest manifest;
    ASSERT_TRUE(checkpoint::FindNewestValid(ckpt, &skipped, &newest, &manifest, "").ok());
    EXPECT_GT(manifest.epoch_examples, 0) << "the stop should land inside an epoch";
    EXPECT_EQ(manifest.world_size, 2);

    ASSERT_EQ(RunProcess(args({"--checkpoint-dir", ckpt, "--resume", "--summary-json",
                               (dir_ / "resumed.json").string()}),
                         {}, &out),
              0)
        << out;
    EXPECT_EQ(Summary("resumed.json")["parameters_sha256"],
              Summary("full.json")["parameters_sha256"]);
  }

  petname::testing::TempDir tmp_;
  fs::path dir_ = tmp_.fs_path();
};

// Several CPU ranks need Gloo, which a LibTorch without gloo headers (the PyPI wheel's) lacks.
#ifdef PETNAME_TEST_HAVE_GLOO
#define SKIP_WITHOUT_GLOO() (void)0
#else
#define SKIP_WITHOUT_GLOO() GTEST_SKIP() << "this build has no Gloo"
#endif

// Several CPU ranks need Gloo: a build with it trains them, one without it (a LibTorch without
// gloo headers) refuses them with one line. Each build asserts its own case; none skips.
TEST_F(TrainDistTest, SeveralCpuRanksTrainWithGlooAndAreAUsageErrorWithout) {
  std::string out;
#ifdef PETNAME_TEST_HAVE_GLOO
  EXPECT_EQ(RunProcess(Args(2, 1), {}, &out), 0) << out;
#else
  EXPECT_EQ(RunProcess(Args(2, 1), {}, &out), 2) << out;
  EXPECT_NE(out.find("petname: error: --backend gloo: this build has no Gloo"), std::string::npos)
      << out;
#endif
}

TEST_F(TrainDistTest, TwoRanksTrainAndOnlyRankZeroReports) {
  SKIP_WITHOUT_GLOO();
  std::string out;
  int code = RunProcess(Args(2, 2, {"--summary-json", (dir_ / "s.json").string()}), {}, &out);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("[rank 0] epoch 1/2  train_loss "), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 0] epoch 2/2  train_loss "), std::string::npos) << out;
  EXPECT_EQ(out.find("[rank 1] epoch"), std::string::npos) << out;
  EXPECT_EQ(out.find("[rank 1] petname: data:"), std::string::npos) << out;
  EXPECT_EQ(out.find("not authenticated"), std::string::npos) << out;  // the launcher's secret
  nlohmann::json s = Summary("s.json");
  EXPECT_EQ(s["epochs"], 2);
  EXPECT_GE(s["comm_wait_seconds"].get<double>(), 0.0);
}

TEST_F(TrainDistTest, SigtermCheckpointsExits143AndResumesToTheSameParameters) {
  SKIP_WITHOUT_GLOO();
  ExpectSigtermResumesExactly({});
}

// The device-generic step (the GPU's) on CPU ranks: the stop vote travels in its all-reduced
// gradient buffer.
TEST_F(TrainDistTest, DeviceForestRanksStopTogetherAndResumeExactly) {
  SKIP_WITHOUT_GLOO();
  ExpectSigtermResumesExactly({"--lstm-impl", "device-forest"});
}

// The device step's gradient buckets, all-reduced while backward runs: their size and
// the overlap change when the sums happen, not what they are (two ranks add two numbers per
// element), so the parameters come out bit for bit the same.
TEST_F(TrainDistTest, DeviceForestBucketsAndOverlapDoNotChangeTheParameters) {
  SKIP_WITHOUT_GLOO();
  std::string out;
  const std::vector<std::vector<std::string>> variants = {
      {"--bucket-mb", "0.05"}, {"--no-overlap"}, {}};
  for (size_t i = 0; i < variants.size(); ++i) {
    std::vector<std::string> extra = {"--lstm-impl", "device-forest", "--summary-json",
                                      (dir_ / ("v" + std::to_string(i) + ".json")).string()};
    extra.insert(extra.end(), variants[i].begin(), variants[i].end());
    ASSERT_EQ(RunProcess(Args(2, 1, extra), {}, &out), 0) << out;
  }
  EXPECT_EQ(Summary("v0.json")["parameters_sha256"], Summary("v1.json")["parameters_sha256"]);
  EXPECT_EQ(Summary("v2.json")["parameters_sha256"], Summary("v1.json")["parameters_sha256"]);
}

// N ranks with batch B train like one rank with batch N x B: the same global batches (the
// sampler interleaves the ranks), gradients averaged over the ranks. What differs is float
// summation order, which Adam's normalised steps amplify, and the padding of an odd epoch to
// the world size (one example twice); after one epoch of 61 steps the training loss agrees
// to a relative 2e-4 and the validation loss to 5e-3 (measured: 5e-5 and 2e-3, the same as
// the host step's two ranks against one).
TEST_F(TrainDistTest, DeviceForestTwoRanksTrainLikeOneRankWithTheGlobalBatch) {
  SKIP_WITHOUT_GLOO();
  std::string out;
  ASSERT_EQ(RunProcess(Args(2, 1,
                            {"--lstm-impl", "device-forest", "--summary-json",
                             (dir_ / "two.json").string()}),
                       {}, &out),
            0)
      << out;
  std::vector<std::string> one =
      Args(1, 1, {"--lstm-impl", "device-forest", "--summary-json", (dir_ / "one.json").string()});
  *std::find(one.begin(), one.end(), "32") = "64";  // --batch-size
  ASSERT_EQ(RunProcess(one, {}, &out), 0) << out;
  const nlohmann::json two_ranks = Summary("two.json"), one_rank = Summary("one.json");
  ASSERT_EQ(two_ranks["steps"], one_rank["steps"]);
  const double train = one_rank["train_loss_trace"][0].get<double>();
  const double val = one_rank["val_loss_trace"][0].get<double>();
  EXPECT_NEAR(two_ranks["train_loss_trace"][0].get<double>(), train, 2e-4 * train);
  EXPECT_NEAR(two_ranks["val_loss_trace"][0].get<double>(), val, 5e-3 * val);
}

TEST_F(TrainDistTest, ResumeOnAnotherWorldSizeReportsTheGlobalBatch) {
  SKIP_WITHOUT_GLOO();
  const std::string ckpt = (dir_ / "ckpt").string();
  std::string out;
  ASSERT_EQ(RunProcess(Args(2, 1, {"--checkpoint-dir", ckpt}), {}, &out), 0) << out;
  ASSERT_EQ(RunProcess(Args(3, 2, {"--checkpoint-dir", ckpt, "--resume"}), {}, &out), 0) << out;
  EXPECT_NE(out.find("global batch changes from 64 (2 ranks x 32) to 96 (3 ranks x 32)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("[rank 0] epoch 2/2"), std::string::npos) << out;
}

TEST_F(TrainDistTest, KilledRankMakesTheLauncherReturnNonZero) {
  SKIP_WITHOUT_GLOO();
  Subprocess run(Args(3, 50), {});
  ASSERT_TRUE(WaitForOutput(run, "[rank 0] epoch 1/50")) << run.Output();
  std::ifstream children("/proc/" + std::to_string(run.pid()) + "/task/" +
                         std::to_string(run.pid()) + "/children");
  pid_t victim = 0;
  ASSERT_TRUE(children >> victim);
  kill(victim, SIGKILL);
  const int code = run.Wait();  // killed (-1) if the launcher hangs
  EXPECT_EQ(code, 137) << run.Output();
  EXPECT_NE(run.Output().find("exited with code 137; stopping the others"), std::string::npos)
      << run.Output();
}

// The launcher's child that runs global rank `rank` (its RANK variable), or 0.
pid_t RankPid(pid_t launcher, int rank) {
  std::ifstream children("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) +
                         "/children");
  const std::string want = "RANK=" + std::to_string(rank);
  for (pid_t child = 0; children >> child;) {
    std::ifstream environ("/proc/" + std::to_string(child) + "/environ");
    for (std::string var; std::getline(environ, var, '\0');) {
      if (var == want) return child;
    }
  }
  return 0;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last line of `text` that starts with `prefix`, without it; "" when none does.
std::string LastLineStarting(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) last = line.substr(prefix.size());
  }
  return last;
}

// Each rank keeps its output of the attempt under <checkpoint-dir>/logs: rank 0, killed with
// SIGKILL, still has the last line it printed, and rank 1, which fails when its peer is gone,
// ends its log with its own last line. `petname logs` lists and prints them.
TEST_F(TrainDistTest, EachRanksLogOfTheAttemptSurvivesAKilledRank) {
  SKIP_WITHOUT_GLOO();
  const fs::path ckpt = dir_ / "ckpt";
  Subprocess run(Args(2, 50, {"--checkpoint-dir", ckpt.string()}), {{"PETNAME_ATTEMPT", "4"}});
  ASSERT_TRUE(WaitForOutput(run, "[rank 0] epoch 1/50")) << run.Output();
  const pid_t victim = RankPid(run.pid(), 0);
  ASSERT_GT(victim, 0);
  kill(victim, SIGKILL);
  EXPECT_EQ(run.Wait(), 137) << run.Output();
  const std::string out = run.Output();

  const fs::path attempt = ckpt / "logs" / "attempt-4";
  const std::string rank0 = ReadAll(attempt / "rank-0.log");
  EXPECT_NE(rank0.find("epoch 1/50  train_loss "), std::string::npos) << rank0;
  EXPECT_NE(rank0.find(LastLineStarting(out, "[rank 0] ") + "\n"), std::string::npos) << rank0;
  const std::string rank1_last = LastLineStarting(out, "[rank 1] ");
  ASSERT_FALSE(rank1_last.empty()) << out;
  const std::string rank1 = ReadAll(attempt / "rank-1.log");
  EXPECT_EQ(LastLineStarting(rank1, ""), rank1_last) << rank1;

  std::string listed;
  ASSERT_EQ(
      RunProcess({testing::PetnameBin(), "logs", "--checkpoint-dir", ckpt.string()}, {}, &listed),
      0)
      << listed;
  EXPECT_NE(listed.find("attempt 4: rank 0 ("), std::string::npos) << listed;
  EXPECT_NE(listed.find(", rank 1 ("), std::string::npos) << listed;
  std::string printed;
  ASSERT_EQ(RunProcess({testing::PetnameBin(), "logs", "--checkpoint-dir", ckpt.string(),
                        "--attempt", "4", "--rank", "1"},
                       {}, &printed),
            0)
      << printed;
  EXPECT_EQ(printed, rank1);
}

// A rank that stops answering (SIGSTOP, as a hung host or a stuck device would) must not hang
// the job: rank 0's next collective fails after --collective-timeout, naming it, and the
// launcher stops the others and exits non-zero.
TEST_F(TrainDistTest, StoppedRankFailsTheRunAfterTheCollectiveTimeout) {
  SKIP_WITHOUT_GLOO();
  Subprocess run(Args(2, 50, {"--collective-timeout", "5"}), {});
  ASSERT_TRUE(WaitForOutput(run, "[rank 0] epoch 1/50")) << run.Output();
  const pid_t stuck = RankPid(run.pid(), 1);
  ASSERT_NE(stuck, 0) << run.Output();
  kill(stuck, SIGSTOP);
  const int code = run.Wait();  // killed (-1) if the run hangs
  if (code == -1) kill(stuck, SIGKILL);
  EXPECT_EQ(code, 1) << run.Output();
  EXPECT_NE(run.Output().find("[rank 0] petname: error: rank 0: collective failed"),
            std::string::npos)
      << run.Output();
  EXPECT_NE(run.Output().find("within the collective timeout (--collective-timeout 5 s)"),
            std::string::npos)
      << run.Output();
  EXPECT_NE(run.Output().find("launcher: rank 0 exited with code 1; stopping the others"),
            std::string::npos)
      << run.Output();
}

TEST_F(TrainDistTest, BadRankEnvironmentExitsTwoNamingTheVariable) {
  std::string out;
  std::vector<std::string> args = Args(1, 1);
  EXPECT_EQ(RunProcess(args, {{"WORLD_SIZE", "2"}, {"RANK", "2"}}, &out), 2) << out;
  EXPECT_NE(out.find("RANK=2"), std::string::npos) << out;
  EXPECT_EQ(RunProcess(args, {{"MASTER_PORT", "http"}}, &out), 2) << out;
  EXPECT_NE(out.find("MASTER_PORT='http'"), std::string::npos) << out;
  EXPECT_EQ(RunProcess(args, {{"PET_NNODES", "x"}}, &out), 2) << out;
  EXPECT_NE(out.find("PET_NNODES"), std::string::npos) << out;
}

// Two launchers of two ranks each, as two pods of processesPerReplica 2 would run them: one
// world of four that checkpoints with world size 4.
TEST_F(TrainDistTest, TwoNodesOfTwoRanksTrainAsAWorldOfFour) {
  SKIP_WITHOUT_GLOO();
  const std::string ckpt = (dir_ / "ckpt").string();
  std::map<std::string, std::string> env = {{"MASTER_ADDR", "127.0.0.1"},
                                            {"MASTER_PORT", std::to_string(launch::FreeTcpPort())},
                                            {"PET_NNODES", "2"},
                                            {"PET_NODE_RANK", "1"}};
  Subprocess second(Args(2, 1, {"--checkpoint-dir", ckpt}), env);
  env["PET_NODE_RANK"] = "0";
  std::string out;
  ASSERT_EQ(RunProcess(Args(2, 1, {"--checkpoint-dir", ckpt}), env, &out), 0) << out;
  ASSERT_EQ(second.Wait(), 0) << second.Output();
  EXPECT_NE(out.find("launcher: ranks 0..1 of 4"), std::string::npos) << out;
  EXPECT_NE(second.Output().find("launcher: ranks 2..3 of 4"), std::string::npos)
      << second.Output();
  std::vector<std::string> skipped;
  std::string newest;
  checkpoint::Manifest manifest;
  ASSERT_TRUE(checkpoint::FindNewestValid(ckpt, &skipped, &newest, &manifest, "").ok());
  EXPECT_EQ(manifest.world_size, 4);
}

// Two single-rank processes of one world started by hand, as two pods of a job would be; each
// gets `extra[rank]` and `secret[rank]`. Returns both exit codes and outputs.
struct HandStarted {
  int code[2] = {-1, -1};
  std::string out[2];
};

class RendezvousCheckTest : public TrainDistTest {
 protected:
  HandStarted StartTwo(const std::vector<std::string> extra[2], const std::string secret[2]) {
    const std::string port = std::to_string(launch::FreeTcpPort());
    std::vector<std::unique_ptr<Subprocess>> ranks;
    for (int r = 0; r < 2; ++r) {
      ranks.push_back(std::make_unique<Subprocess>(
          Args(1, 1, extra[r]),
          std::map<std::string, std::string>{{"MASTER_ADDR", "127.0.0.1"},
                                             {"MASTER_PORT", port},
                                             {"WORLD_SIZE", "2"},
                                             {"RANK", std::to_string(r)},
                                             {"PETNAME_RENDEZVOUS_SECRET", secret[r]}}));
    }
    HandStarted h;
    for (int r = 0; r < 2; ++r) {
      h.code[r] = ranks[r]->Wait();
      h.out[r] = ranks[r]->Output();
    }
    return h;
  }
};

TEST_F(RendezvousCheckTest, RanksWithAnotherLearningRateStopNamingIt) {
  SKIP_WITHOUT_GLOO();
  const std::vector<std::string> extra[2] = {{"--lr", "0.001"}, {"--lr", "0.002"}};
  const std::string secret[2] = {"s3cret", "s3cret"};
  const HandStarted h = StartTwo(extra, secret);
  EXPECT_EQ(h.code[0], 1) << h.out[0];
  EXPECT_EQ(h.code[1], 1) << h.out[1];
  EXPECT_NE(h.out[0].find("petname: error: rendezvous: rank 0: rank 1 runs with lr=0.002, this "
                          "rank with lr=0.001;"),
            std::string::npos)
      << h.out[0];
  EXPECT_NE(h.out[1].find("petname: error: rendezvous: rank 1: rank 0 runs with lr=0.001, this "
                          "rank with lr=0.002;"),
            std::string::npos)
      << h.out[1];
  EXPECT_EQ(h.out[0].find("epoch 1/1"), std::string::npos) << h.out[0];
}

// The store refuses the stranger's connection before it can read or write a key: the stranger
// stops at once, and rank 0, whose peer never came, stops at its rendezvous timeout naming the
// address it refused.
TEST_F(RendezvousCheckTest, ARankWithoutTheJobsSecretCannotJoin) {
  SKIP_WITHOUT_GLOO();
  const std::vector<std::string> extra[2] = {{"--rendezvous-timeout", "10"}, {}};
  const std::string secret[2] = {"the-jobs", "a-strangers"};
  const HandStarted h = StartTwo(extra, secret);
  EXPECT_EQ(h.code[1], 1) << h.out[1];
  EXPECT_NE(h.out[1].find("petname: error: rendezvous: rank 1: the store on 127.0.0.1:"),
            std::string::npos)
      << h.out[1];
  EXPECT_NE(h.out[1].find(" refused this rank: its PETNAME_RENDEZVOUS_SECRET is not the one rank "
                          "0 has\n"),
            std::string::npos)
      << h.out[1];
  EXPECT_EQ(h.code[0], 1) << h.out[0];
  EXPECT_NE(h.out[0].find("petname: error: rendezvous: the ranks did not all check in: "),
            std::string::npos)
      << h.out[0];
  EXPECT_NE(h.out[0].find("; the store refused 1 connection, the last from 127.0.0.1:"),
            std::string::npos)
      << h.out[0];
  EXPECT_NE(h.out[0].find(" (it did not prove the job's rendezvous secret)\n"), std::string::npos)
      << h.out[0];
}

TEST_F(RendezvousCheckTest, MatchingRanksStartedByHandTrain) {
  SKIP_WITHOUT_GLOO();
  const std::vector<std::string> extra[2] = {{}, {}};
  const std::string secret[2] = {"s3cret", "s3cret"};
  const HandStarted h = StartTwo(extra, secret);
  EXPECT_EQ(h.code[0], 0) << h.out[0];
  EXPECT_EQ(h.code[1], 0) << h.out[1];
  EXPECT_NE(h.out[0].find("epoch 1/1"), std::string::npos) << h.out[0];
  EXPECT_EQ(h.out[0].find("not authenticated"), std::string::npos) << h.out[0];
}

TEST_F(TrainDistTest, LauncherUsageErrorsExitTwo) {
  SKIP_WITHOUT_GLOO();
  std::string out;
  EXPECT_EQ(RunProcess(Args(2, 1, {"--rank", "1"}), {}, &out), 2) << out;
  EXPECT_NE(out.find("--rank cannot be combined with --nproc"), std::string::npos) << out;
  EXPECT_EQ(RunProcess(Args(2, 1), {{"PET_NNODES", "2"}}, &out), 2) << out;
  EXPECT_NE(out.find("PET_NNODES=2 needs the master's address"), std::string::npos) << out;
  EXPECT_EQ(RunProcess(Args(2, 1, {"--nnodes", "2", "--node-rank", "2"}),
                       {{"MASTER_ADDR", "127.0.0.1"}}, &out),
            2)
      << out;
  EXPECT_NE(out.find("--node-rank=2 must be in [0, 2)"), std::string::npos) << out;
}

}  // namespace
}  // namespace petname
