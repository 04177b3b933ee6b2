// How `petname train` chooses its intra-op threads (launch/cpu_budget.h), through the real
// binary: --threads, OMP_NUM_THREADS, a bad OMP_NUM_THREADS, and a CPU quota made by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/file_util.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/launch/subprocess.h"
#include "trainer/launch/cpu_budget.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

// One epoch on 200 names, threads left to the default.
std::vector<std::string> Args() {
  return {PetnameBin(), "train",    "--data", TestData(),     "--max-names",
          "200",        "--epochs", "1",      "--batch-size", "128"};
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

// A cgroup with a CPU quota of one CPU, of the version of this process's cpu controller, made by
// the test and removed at the end (the test's processes have exited by then). dir() is empty
// where this machine cannot make one (no cpu controller, no permission):
//  - v1: a child of this process's `cpu` controller cgroup, with cpu.cfs_quota_us;
//  - v2: a cgroup with cpu.max beside this process's own when its parent hands the cpu
//    controller down (a cgroup holding processes may not hand it down itself, and ours holds
//    the test), or a child of the hierarchy's root, which may.
class OneCpuCgroup {
 public:
  OneCpuCgroup() {
    std::string cgroups, mounts;
    if (!ReadFile("/proc/self/cgroup", &cgroups).ok() ||
        !ReadFile("/proc/self/mountinfo", &mounts).ok()) {
      return;
    }
    const launch::CpuCgroup own = launch::FindCpuCgroup(cgroups, mounts);
    if (own.dirs.empty()) return;
    const std::string name = "petname-test-" + std::to_string(getpid());
    if (own.version == 1) {
      quota_file_ = "cpu.cfs_quota_us";
      Make(fs::path(own.dirs.front()) / name,
           {{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "100000"}});
      return;
    }
    if (own.version != 2) return;
    quota_file_ = "cpu.max";
    const fs::path self = own.dirs.front();
    fs::path parent;
    if (fs::exists(self / "cpu.max") && own.dirs.size() > 1) {
      parent = own.dirs[1];
    } else if (own.dirs.size() == 1 && !fs::exists(self / "cpu.max")) {
      std::string handed_down;
      if (!ReadFile((self / "cgroup.subtree_control").string(), &handed_down).ok()) return;
      std::istringstream words(handed_down);
      const std::istream_iterator<std::string> end;
      if (std::find(std::istream_iterator<std::string>(words), end, "cpu") == end) {
        if (!Write(self / "cgroup.subtree_control", "+cpu")) return;
        enabled_in_ = self;
      }
      parent = self;
    } else {
      return;
    }
    Make(parent / name, {{"cpu.max", "100000 100000"}});
  }
  ~OneCpuCgroup() {
    if (!dir_.empty()) rmdir(dir_.c_str());
    if (!enabled_in_.empty()) Write(enabled_in_ / "cgroup.subtree_control", "-cpu");
  }
  const std::string& dir() const { return dir_; }
  // The file that sets the quota: dir()/cpu.cfs_quota_us (v1) or dir()/cpu.max (v2).
  std::string quota_file() const { return dir_ + "/" + quota_file_; }

  // `argv` run inside the cgroup: a fixed shell line moves itself in, then execs argv.
  std::vector<std::string> Inside(const std::vector<std::string>& argv) const {
    std::vector<std::string> out = {"/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                                    dir_ + "/cgroup.procs"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }

 private:
  // Makes `dir` and writes each (file, value); on a failed write the directory goes again.
  void Make(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& files) {
    std::error_code ec;
    if (!fs::create_directory(dir, ec)) return;
    dir_ = dir.string();
    for (const auto& [file, value] : files) {
      if (!Write(dir / file, value)) {
        rmdir(dir_.c_str());
        dir_.clear();
        return;
      }
    }
  }
  static bool Write(const fs::path& file, const std::string& value) {
    std::ofstream out(file);
    out << value;
    out.close();
    return static_cast<bool>(out);
  }

  std::string dir_;
  std::string quota_file_;
  fs::path enabled_in_;  // where the test handed the cpu controller down, to take it back
};

TEST(ThreadsTest, ARankInsideAOneCpuQuotaTakesOneThread) {
  const OneCpuCgroup cgroup;
  if (cgroup.dir().empty()) GTEST_SKIP() << "cannot make a cgroup with a CPU quota here";
  std::string out;
  ASSERT_EQ(RunProcess(cgroup.Inside(Args()), {}, &out), 0) << out;
  EXPECT_NE(
      out.find("petname: threads: 1 intra-op (cgroup CPU quota 1 (" + cgroup.quota_file() + "), "),
      std::string::npos)
      << out;
}

TEST(ThreadsTest, TheLauncherSharesTheQuotaAmongItsRanks) {
  const OneCpuCgroup cgroup;
  if (cgroup.dir().empty()) GTEST_SKIP() << "cannot make a cgroup with a CPU quota here";
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
