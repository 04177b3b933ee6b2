#include "trainer/launch/cpu_budget.h"

#include <sched.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "common/file_util.h"

namespace petname::launch {
namespace {

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// A whole number >= 0 (no sign, no junk), or -1.
long long ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::stoll(text);
}

std::optional<double> Ratio(const std::string& quota, const std::string& period) {
  const long long q = ParseCount(quota), p = ParseCount(period);
  if (q <= 0 || p <= 0) return std::nullopt;
  return static_cast<double>(q) / static_cast<double>(p);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool octal = s[i] == '\\' && i + 3 < s.size() &&
                       s.substr(i + 1, 3).find_first_not_of("01234567") == std::string::npos;
    if (octal) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The file's contents; empty when it cannot be read (no quota file means no quota).
std::string Contents(const std::string& path) {
  std::string text;
  return ReadFile(path, &text).ok() ? text : "";
}

// The cgroup path of the cpu controller: v1 when a line names it, else the unified "0::" line.
bool CgroupPath(const std::string& proc_self_cgroup, int* version, std::string* path) {
  std::string unified;
  bool have_unified = false;
  std::istringstream in(proc_self_cgroup);
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (line.substr(0, a) == "0" && controllers.empty()) {
      unified = line.substr(b + 1);
      have_unified = true;
      continue;
    }
    for (const std::string& c : Split(controllers, ',')) {
      if (c == "cpu") {
        *version = 1;
        *path = line.substr(b + 1);
        return true;
      }
    }
  }
  if (!have_unified) return false;
  *version = 2;
  *path = unified;
  return true;
}

}  // namespace

int CpuBudget::Cpus() const {
  int cpus = std::max(1, affinity_cpus);
  if (quota_cpus > 0) cpus = std::min(cpus, static_cast<int>(std::ceil(quota_cpus - 1e-9)));
  return std::max(1, cpus);
}

std::string CpuBudget::Describe() const {
  std::ostringstream out;
  if (quota_cpus > 0) out << "cgroup CPU quota " << quota_cpus << " (" << quota_file << "), ";
  out << affinity_cpus << (affinity_cpus == 1 ? " CPU" : " CPUs") << " in the affinity mask";
  return out.str();
}

std::optional<double> ParseCpuMax(const std::string& contents) {
  const std::vector<std::string> fields = Split(Trim(contents), ' ');
  if (fields.size() != 2) return std::nullopt;
  return Ratio(fields[0], fields[1]);
}

std::optional<double> ParseCfsQuota(const std::string& quota, const std::string& period) {
  return Ratio(Trim(quota), Trim(period));
}

CpuCgroup FindCpuCgroup(const std::string& proc_self_cgroup, const std::string& mountinfo) {
  CpuCgroup out;
  int version = 0;
  std::string path;
  if (!CgroupPath(proc_self_cgroup, &version, &path)) return out;
  std::istringstream in(mountinfo);
  for (std::string line; std::getline(in, line);) {
    // ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<std::string> head = Split(line.substr(0, dash), ' ');
    const std::vector<std::string> tail = Split(line.substr(dash + 3), ' ');
    if (head.size() < 5 || tail.size() < 3) continue;
    bool match = false;
    if (version == 2) {
      match = tail[0] == "cgroup2";
    } else if (tail[0] == "cgroup") {
      for (const std::string& option : Split(tail[2], ',')) match = match || option == "cpu";
    }
    if (!match) continue;
    const std::string root = Unescape(head[3]), mount = Unescape(head[4]);
    // Inside a cgroup namespace the process's path may not lie under the mount's root: the
    // mount then is the process's own cgroup.
    std::string relative;
    if (root == "/") {
      relative = path;
    } else if (path == root || path.rfind(root + "/", 0) == 0) {
      relative = path.substr(root.size());
    }
    std::string dir = mount;
    for (const std::string& part : Split(relative, '/')) {
      if (!part.empty()) dir += "/" + part;
    }
    out.version = version;
    for (;;) {
      out.dirs.push_back(dir);
      if (dir.size() <= mount.size()) break;
      dir = dir.substr(0, dir.rfind('/'));
    }
    return out;
  }
  return out;
}

void ReadCgroupQuota(const std::string& root, CpuBudget* budget) {
  budget->quota_cpus = 0;
  budget->quota_file.clear();
  const CpuCgroup cgroup =
      FindCpuCgroup(Contents(root + "/proc/self/cgroup"), Contents(root + "/proc/self/mountinfo"));
  for (const std::string& dir : cgroup.dirs) {
    std::optional<double> quota;
    std::string file;
    if (cgroup.version == 2) {
      file = dir + "/cpu.max";
      quota = ParseCpuMax(Contents(root + file));
    } else {
      file = dir + "/cpu.cfs_quota_us";
      quota = ParseCfsQuota(Contents(root + file), Contents(root + dir + "/cpu.cfs_period_us"));
    }
    if (quota && (budget->quota_cpus == 0 || *quota < budget->quota_cpus)) {
      budget->quota_cpus = *quota;
      budget->quota_file = file;
    }
  }
}

CpuBudget ReadCpuBudget() {
  CpuBudget budget;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) budget.affinity_cpus = CPU_COUNT(&set);
  budget.affinity_cpus = std::max(1, budget.affinity_cpus);
  ReadCgroupQuota("", &budget);
  return budget;
}

Status ChooseThreads(int flag, const char* omp_num_threads, bool omp_from_petname,
                     const CpuBudget& budget, int local_ranks, ThreadChoice* out) {
  if (flag > 0) {
    *out = {flag, "--threads"};
    return Status::Ok();
  }
  if (omp_num_threads != nullptr && *omp_num_threads != '\0') {
    const std::string value = omp_num_threads;
    const long long n = ParseCount(Trim(value.substr(0, value.find(','))));
    if (n < 1 || n > std::numeric_limits<int>::max()) {
      return Status::InvalidArgument("OMP_NUM_THREADS='" + value +
                                     "' is not a positive whole number");
    }
    *out = {static_cast<int>(n), "OMP_NUM_THREADS=" + value, omp_from_petname};
    return Status::Ok();
  }
  const int ranks = std::max(1, local_ranks);
  out->threads = std::max(1, budget.Cpus() / ranks);
  out->why = budget.Describe();
  out->adaptive = true;
  if (ranks > 1) out->why += ", shared by " + std::to_string(ranks) + " local ranks";
  return Status::Ok();
}

}  // namespace petname::launch
