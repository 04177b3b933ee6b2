// How many CPUs this process may really use, and how many intra-op threads a rank takes from
// them. In a container, std::thread::hardware_concurrency() is the node's core count, not the
// pod's CPU limit: a 1-CPU pod on a 64-core node would start 64 spinning OpenMP threads.
//
// The budget is the CPUs of the process's affinity mask (sched_getaffinity, which cpusets and
// `taskset` narrow), capped by the CPU bandwidth quota of its cgroup and of every ancestor up to
// the mount (the smallest wins), as Go's runtime and the JVM read them:
//  - cgroup v2: `cpu.max` ("QUOTA PERIOD" or "max PERIOD") of the unified hierarchy;
//  - cgroup v1: `cpu.cfs_quota_us` (-1: none) / `cpu.cfs_period_us` of the `cpu` controller.
// The cgroup is the one /proc/self/cgroup names, found under the mount /proc/self/mountinfo
// lists (a controller with a v1 line wins over the unified hierarchy). Anything unreadable or
// malformed means "no quota": the budget never fails, it only gets less precise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::launch {

struct CpuBudget {
  int affinity_cpus = 1;   // CPUs in the affinity mask, at least 1
  double quota_cpus = 0;   // quota / period of the tightest cgroup; 0: no quota
  std::string quota_file;  // the file that set quota_cpus ("" without a quota)

  // min(affinity_cpus, ceil(quota_cpus)), at least 1.
  int Cpus() const;
  // E.g. "cgroup CPU quota 1.5 (/sys/fs/cgroup/cpu.max), 8 CPUs in the affinity mask".
  std::string Describe() const;
};

// The cgroup directories whose quota applies, innermost first, and the cgroup version.
struct CpuCgroup {
  int version = 0;  // 1 or 2; 0: no cpu cgroup found
  std::vector<std::string> dirs;
};

// Pure parsers of the kernel's files (contents as read, trailing newline allowed).
// cpu.max: "max 100000" -> nullopt; "150000 100000" -> 1.5; junk -> nullopt.
std::optional<double> ParseCpuMax(const std::string& contents);
// cpu.cfs_quota_us and cpu.cfs_period_us: "-1" -> nullopt; "50000", "100000" -> 0.5.
std::optional<double> ParseCfsQuota(const std::string& quota, const std::string& period);
// From /proc/self/cgroup and /proc/self/mountinfo: the directories of the process's cpu cgroup
// and its ancestors down to the mount point, innermost first.
CpuCgroup FindCpuCgroup(const std::string& proc_self_cgroup, const std::string& mountinfo);

// Reads the quota under `root` ("" for the real filesystem; a fixture tree in tests: the files
// are read at root + "/proc/self/cgroup", root + mount point + ...). Sets quota_cpus and
// quota_file of *budget; leaves affinity_cpus alone.
void ReadCgroupQuota(const std::string& root, CpuBudget* budget);

// The real budget of this process: affinity mask and cgroup quota.
CpuBudget ReadCpuBudget();

struct ThreadChoice {
  int threads = 1;
  std::string why;  // e.g. "OMP_NUM_THREADS=2", "--threads", or the budget's Describe()
  // Chosen from the budget, not by the user: training may use fewer while the threads wait
  // for a CPU (train/thread_tuner.h).
  bool adaptive = false;
};

// Intra-op threads for each of `local_ranks` ranks: `flag` when > 0 (--threads), else
// `omp_num_threads` when set and non-empty (its first entry, as OpenMP reads "4,2"), else
// max(1, budget.Cpus() / local_ranks), adaptive; `omp_num_threads` too is adaptive when
// `omp_from_petname` (kAdaptiveThreadsEnv is "1": the launcher or the operator set it). An
// OMP_NUM_THREADS that is not a positive whole number is kInvalidArgument naming it.
Status ChooseThreads(int flag, const char* omp_num_threads, bool omp_from_petname,
                     const CpuBudget& budget, int local_ranks, ThreadChoice* out);

}  // namespace petname::launch
