// How `petname train` chooses its intra-op threads (launch/cpu_budget.h), through the real
// binary: --threads, OMP_NUM_THREADS, a bad OMP_NUM_THREADS, and a CPU quota made by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "tests/trainer/launch/subprocess.h"
#include "trainer/launch/cpu_budget.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

// One epoch on 200 names, threads left to the default.
std::vector<std::string> Args() {
  return {PETNAME_BIN, "train",    "--data", PETNAME_TEST_DATA, "--max-names",
          "200",       "--epochs", "1",      "--batch-size",    "128"};
}

TEST(ThreadsTest, OmpNumThreadsWinsOverTheBudgetAndTheFlagOverBoth) {
  std::string out;
  ASSERT_EQ(RunProcess(Args(), {{"OMP_NUM_THREADS", "3"}}, &out), 0) << out;
  EXPECT_NE(out.find("petname: threads: 3 intra-op (OMP_NUM_THREADS=3)"), std::string::npos) << out;
  std::vector<std::string> args = Args();
  args.insert(args.end(), {"--threads", "2"});
  ASSERT_EQ(RunProcess(args, {{"OMP_NUM_THREADS", "3"}}, &out), 0) << out;
  EXPECT_NE(out.find("petname: threads: 2 intra-op (--threads)"), std::string::npos) << out;
}

TEST(ThreadsTest, WithoutEitherTheBudgetDecides) {
  std::string out;
  ASSERT_EQ(RunProcess(Args(), {}, &out), 0) << out;
  const int cpus = launch::ReadCpuBudget().Cpus();
  EXPECT_NE(out.find("petname: threads: " + std::to_string(cpus) + " intra-op ("),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(" in the affinity mask)"), std::string::npos) << out;
}

TEST(ThreadsTest, OnlyPetnamesOwnCountIsLoweredWhileTheThreadsWaitForACpu) {
  std::string out;
  ASSERT_EQ(RunProcess(Args(), {{"OMP_NUM_THREADS", "2"}, {"PETNAME_ADAPTIVE_THREADS", "1"}}, &out),
            0)
      << out;
  EXPECT_NE(out.find("petname: threads: 2 intra-op (OMP_NUM_THREADS=2), fewer while they wait "
                     "for a CPU\n"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunProcess(Args(), {{"OMP_NUM_THREADS", "2"}}, &out), 0) << out;
  EXPECT_NE(out.find("petname: threads: 2 intra-op (OMP_NUM_THREADS=2), fixed\n"),
            std::string::npos)
      << out;
  std::vector<std::string> args = Args();
  args.insert(args.end(), {"--threads", "2"});
  ASSERT_EQ(RunProcess(args, {{"OMP_NUM_THREADS", "2"}, {"PETNAME_ADAPTIVE_THREADS", "1"}}, &out),
            0)
      << out;
  EXPECT_NE(out.find("petname: threads: 2 intra-op (--threads), fixed\n"), std::string::npos)
      << out;
  // --deterministic: another thread count sums in another order, so the count never changes.
  args = Args();
  args.push_back("--deterministic");
  ASSERT_EQ(RunProcess(args, {{"OMP_NUM_THREADS", "2"}, {"PETNAME_ADAPTIVE_THREADS", "1"}}, &out),
            0)
      << out;
  EXPECT_NE(out.find("petname: threads: 2 intra-op (OMP_NUM_THREADS=2), fixed\n"),
            std::string::npos)
      << out;
}

// The launcher passes its own count on as petname's (PETNAME_ADAPTIVE_THREADS=1) and the
// user's as the user's (rank 0 prints the thread line).
TEST(ThreadsTest, TheRanksOfTheLauncherKeepWhoseCountItIs) {
  std::vector<std::string> args = Args();
  args.insert(args.end(), {"--nproc", "2"});
  std::string out;
  const int adaptive =
      RunProcess(args, {{"OMP_NUM_THREADS", "2"}, {"PETNAME_ADAPTIVE_THREADS", "1"}}, &out);
#ifdef PETNAME_TEST_HAVE_GLOO
  ASSERT_EQ(adaptive, 0) << out;
  EXPECT_NE(out.find("[rank 0] petname: threads: 2 intra-op (OMP_NUM_THREADS=2), fewer while "
                     "they wait for a CPU\n"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunProcess(args, {{"OMP_NUM_THREADS", "2"}}, &out), 0) << out;
  EXPECT_NE(out.find("[rank 0] petname: threads: 2 intra-op (OMP_NUM_THREADS=2), fixed\n"),
            std::string::npos)
      << out;
#else
  EXPECT_EQ(adaptive, 2) << out;
#endif
}

TEST(ThreadsTest, BadOmpNumThreadsIsAUsageError) {
  std::string out;
  EXPECT_EQ(RunProcess(Args(), {{"OMP_NUM_THREADS", "lots"}}, &out), 2) << out;
  EXPECT_NE(out.find("petname: error: OMP_NUM_THREADS='lots' is not a positive whole number"),
            std::string::npos)
      << out;
}

// A child of this process's cgroup v1 `cpu` controller with a CFS quota of one CPU, removed
// at the end (the test's processes have exited by then). dir() is empty where this machine
// cannot make one: no v1 cpu controller (cgroup v2 is unit-tested on fixture files) or no
// permission.
class OneCpuCgroup {
 public:
  OneCpuCgroup() {
    std::string cgroups, mounts;
    if (!ReadFile("/proc/self/cgroup", &cgroups).ok() ||
        !ReadFile("/proc/self/mountinfo", &mounts).ok()) {
      return;
    }
    const launch::CpuCgroup own = launch::FindCpuCgroup(cgroups, mounts);
    if (own.version != 1 || own.dirs.empty()) return;
    const fs::path dir = fs::path(own.dirs.front()) / ("petname-test-" + std::to_string(getpid()));
    std::error_code ec;
    if (!fs::create_directory(dir, ec)) return;
    dir_ = dir.string();
    std::ofstream(dir / "cpu.cfs_period_us") << 100000;
    std::ofstream quota(dir / "cpu.cfs_quota_us");
    quota << 100000;
    quota.close();
    if (!quota) dir_.clear();
  }
  ~OneCpuCgroup() {
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  const std::string& dir() const { return dir_; }

  // `argv` run inside the cgroup: a fixed shell line moves itself in, then execs argv.
  std::vector<std::string> Inside(const std::vector<std::string>& argv) const {
    std::vector<std::string> out = {"/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                                    dir_ + "/cgroup.procs"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }

 private:
  std::string dir_;
};

TEST(ThreadsTest, ARankInsideAOneCpuQuotaTakesOneThread) {
  const OneCpuCgroup cgroup;
  if (cgroup.dir().empty()) GTEST_SKIP() << "cannot make a cgroup v1 cpu controller child here";
  std::string out;
  ASSERT_EQ(RunProcess(cgroup.Inside(Args()), {}, &out), 0) << out;
  EXPECT_NE(out.find("petname: threads: 1 intra-op (cgroup CPU quota 1 (" + cgroup.dir() +
                     "/cpu.cfs_quota_us), "),
            std::string::npos)
      << out;
}

TEST(ThreadsTest, TheLauncherSharesTheQuotaAmongItsRanks) {
  const OneCpuCgroup cgroup;
  if (cgroup.dir().empty()) GTEST_SKIP() << "cannot make a cgroup v1 cpu controller child here";
  std::vector<std::string> args = Args();
  args.insert(args.end(), {"--nproc", "2"});
  std::string out;
  const int code = RunProcess(cgroup.Inside(args), {}, &out);
#ifdef PETNAME_TEST_HAVE_GLOO
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("launcher: ranks 0..1 of 2, 1 intra-op thread each (cgroup CPU quota 1 ("),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("[rank 0] petname: threads: 1 intra-op (OMP_NUM_THREADS=1)"),
            std::string::npos)
      << out;
#else
  EXPECT_EQ(code, 2) << out;
#endif
}

}  // namespace
}  // namespace petname::testing
