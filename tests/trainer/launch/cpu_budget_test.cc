#include "trainer/launch/cpu_budget.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace petname::launch {
namespace {

using Dirs = std::vector<std::string>;

// This build machine's layout: cgroup v1 controllers beside an empty unified hierarchy.
constexpr const char* kHybridCgroup = "4:memory:/job\n2:cpuacct:/\n1:cpu:/pets/rank-0\n0::/\n";
constexpr const char* kHybridMounts =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "40 31 0:33 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n";

// A cgroup v2 host (systemd) and a pod's container in its own cgroup namespace.
constexpr const char* kV2Cgroup = "0::/kubepods.slice/pod-1/cri-2\n";
constexpr const char* kV2Mounts =
    "25 30 0:23 / /proc rw - proc proc rw\n"
    "35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";

TEST(CpuBudgetTest, ParsesCgroupV2CpuMax) {
  EXPECT_EQ(ParseCpuMax("max 100000\n"), std::nullopt);
  EXPECT_EQ(ParseCpuMax("150000 100000\n"), 1.5);
  EXPECT_EQ(ParseCpuMax("50000 100000"), 0.5);
  for (const char* junk : {"", "100000", "-1 100000", "1x 100000", "100000 0", "1 2 3"}) {
    EXPECT_EQ(ParseCpuMax(junk), std::nullopt) << junk;
  }
}

TEST(CpuBudgetTest, ParsesCgroupV1CfsQuota) {
  EXPECT_EQ(ParseCfsQuota("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("100000\n", "100000\n"), 1.0);
  EXPECT_EQ(ParseCfsQuota("250000", "100000"), 2.5);
  EXPECT_EQ(ParseCfsQuota("", "100000"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("100000", "junk"), std::nullopt);
}

TEST(CpuBudgetTest, FindsTheV1CpuControllerAndItsAncestors) {
  const CpuCgroup cg = FindCpuCgroup(kHybridCgroup, kHybridMounts);
  EXPECT_EQ(cg.version, 1);
  EXPECT_EQ(cg.dirs, (Dirs{"/sys/fs/cgroup/cpu/pets/rank-0", "/sys/fs/cgroup/cpu/pets",
                           "/sys/fs/cgroup/cpu"}));
}

TEST(CpuBudgetTest, FindsTheUnifiedHierarchyOnV2) {
  const CpuCgroup cg = FindCpuCgroup(kV2Cgroup, kV2Mounts);
  EXPECT_EQ(cg.version, 2);
  EXPECT_EQ(cg.dirs, (Dirs{"/sys/fs/cgroup/kubepods.slice/pod-1/cri-2",
                           "/sys/fs/cgroup/kubepods.slice/pod-1", "/sys/fs/cgroup/kubepods.slice",
                           "/sys/fs/cgroup"}));
}

TEST(CpuBudgetTest, AContainersOwnCgroupIsItsMount) {
  // Docker on cgroup v1 without a cgroup namespace: /proc/self/cgroup shows the host path, the
  // mount's root is that same cgroup.
  const CpuCgroup cg = FindCpuCgroup(
      "3:cpu,cpuacct:/docker/abc\n",
      "50 40 0:40 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n");
  EXPECT_EQ(cg.dirs, (Dirs{"/sys/fs/cgroup/cpu,cpuacct"}));
  // A namespaced path outside the mount's root: the mount is the process's cgroup.
  EXPECT_EQ(
      FindCpuCgroup("0::/\n", "60 50 0:41 /pod/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n").dirs,
      (Dirs{"/sys/fs/cgroup"}));
  EXPECT_EQ(FindCpuCgroup("", kV2Mounts).version, 0);
  EXPECT_EQ(FindCpuCgroup(kV2Cgroup, "").version, 0);
}

class CgroupTreeTest : public ::testing::Test {
 protected:
  void Write(const std::string& path, const std::string& text) {
    const std::filesystem::path p = dir_.path() + path;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  petname::testing::TempDir dir_;
};

TEST_F(CgroupTreeTest, TheTightestQuotaOnTheWayUpWins) {
  Write("/proc/self/cgroup", kV2Cgroup);
  Write("/proc/self/mountinfo", kV2Mounts);
  Write("/sys/fs/cgroup/cpu.max", "max 100000\n");
  Write("/sys/fs/cgroup/kubepods.slice/pod-1/cpu.max", "150000 100000\n");
  Write("/sys/fs/cgroup/kubepods.slice/pod-1/cri-2/cpu.max", "400000 100000\n");
  CpuBudget budget;
  budget.affinity_cpus = 8;
  ReadCgroupQuota(dir_.path(), &budget);
  EXPECT_EQ(budget.quota_cpus, 1.5);
  EXPECT_EQ(budget.quota_file, "/sys/fs/cgroup/kubepods.slice/pod-1/cpu.max");
  EXPECT_EQ(budget.Cpus(), 2);
  EXPECT_EQ(budget.Describe(),
            "cgroup CPU quota 1.5 (/sys/fs/cgroup/kubepods.slice/pod-1/cpu.max), 8 CPUs in the "
            "affinity mask");
}

TEST_F(CgroupTreeTest, ReadsV1QuotaAndPeriod) {
  Write("/proc/self/cgroup", kHybridCgroup);
  Write("/proc/self/mountinfo", kHybridMounts);
  Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  Write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  Write("/sys/fs/cgroup/cpu/pets/rank-0/cpu.cfs_quota_us", "50000\n");
  Write("/sys/fs/cgroup/cpu/pets/rank-0/cpu.cfs_period_us", "100000\n");
  CpuBudget budget;
  budget.affinity_cpus = 2;
  ReadCgroupQuota(dir_.path(), &budget);
  EXPECT_EQ(budget.quota_cpus, 0.5);
  EXPECT_EQ(budget.Cpus(), 1);
}

TEST_F(CgroupTreeTest, NoFilesMeansNoQuota) {
  CpuBudget budget;
  budget.affinity_cpus = 4;
  ReadCgroupQuota(dir_.path(), &budget);
  EXPECT_EQ(budget.quota_cpus, 0);
  EXPECT_EQ(budget.Cpus(), 4);
  EXPECT_EQ(budget.Describe(), "4 CPUs in the affinity mask");
}

TEST(CpuBudgetTest, CpusIsTheAffinityCappedByTheRoundedUpQuota) {
  EXPECT_EQ((CpuBudget{8, 0, ""}).Cpus(), 8);
  EXPECT_EQ((CpuBudget{8, 1.0, "q"}).Cpus(), 1);
  EXPECT_EQ((CpuBudget{8, 1.5, "q"}).Cpus(), 2);
  EXPECT_EQ((CpuBudget{8, 0.2, "q"}).Cpus(), 1);
  EXPECT_EQ((CpuBudget{2, 16, "q"}).Cpus(), 2);
}

TEST(CpuBudgetTest, ThreadsComeFromTheFlagThenOmpNumThreadsThenTheBudget) {
  const CpuBudget budget{8, 4, "/q"};
  ThreadChoice c;
  ASSERT_TRUE(ChooseThreads(3, "5", false, budget, 2, &c).ok());
  EXPECT_EQ(c.threads, 3);
  EXPECT_EQ(c.why, "--threads");
  ASSERT_TRUE(ChooseThreads(0, "5", false, budget, 2, &c).ok());
  EXPECT_EQ(c.threads, 5);
  EXPECT_EQ(c.why, "OMP_NUM_THREADS=5");
  ASSERT_TRUE(ChooseThreads(0, "4,2", false, budget, 1, &c).ok());
  EXPECT_EQ(c.threads, 4);
  ASSERT_TRUE(ChooseThreads(0, "", false, budget, 1, &c).ok());
  EXPECT_EQ(c.threads, 4);
  ASSERT_TRUE(ChooseThreads(0, nullptr, false, budget, 2, &c).ok());
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.why, "cgroup CPU quota 4 (/q), 8 CPUs in the affinity mask, shared by 2 local ranks");
  ASSERT_TRUE(ChooseThreads(0, nullptr, false, budget, 16, &c).ok());
  EXPECT_EQ(c.threads, 1);
}

TEST(CpuBudgetTest, OnlyPetnamesOwnChoiceAdapts) {
  const CpuBudget budget{8, 4, "/q"};
  ThreadChoice c;
  ASSERT_TRUE(ChooseThreads(0, nullptr, false, budget, 1, &c).ok());
  EXPECT_TRUE(c.adaptive);
  ASSERT_TRUE(ChooseThreads(0, "2", true, budget, 1, &c).ok());  // the launcher's or operator's
  EXPECT_TRUE(c.adaptive);
  ASSERT_TRUE(ChooseThreads(0, "2", false, budget, 1, &c).ok());  // the user's
  EXPECT_FALSE(c.adaptive);
  ASSERT_TRUE(ChooseThreads(2, "2", true, budget, 1, &c).ok());  // --threads
  EXPECT_FALSE(c.adaptive);
}

TEST(CpuBudgetTest, BadOmpNumThreadsIsAUsageError) {
  ThreadChoice c;
  for (const char* bad : {"0", "-2", "two", "2.5", ","}) {
    const Status st = ChooseThreads(0, bad, false, CpuBudget{}, 1, &c);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("OMP_NUM_THREADS"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace petname::launch
