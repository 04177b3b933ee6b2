#include "trainer/launch/cpu_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <thread>

#include "common/file_util.h"

namespace petname::launch {

std::optional<int64_t> ParseRunDelay(const std::string& schedstat) {
  const char* p = schedstat.c_str();
  char* end = nullptr;
  errno = 0;
  std::strtoll(p, &end, 10);
  if (end == p || errno != 0 || *end != ' ') return std::nullopt;
  p = end;
  const long long delay = std::strtoll(p, &end, 10);
  if (end == p || errno != 0 || delay < 0 || (*end != ' ' && *end != '\n' && *end != '\0')) {
    return std::nullopt;
  }
  return delay;
}

namespace {

// Calls `each` with the text of /proc/self/task/TID/`file` of every thread alive now (at most
// 511 bytes: the first line of schedstat and stat).
void ForEachThread(const char* file, const std::function<void(const char*)>& each) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return;
  while (const dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + e->d_name + "/" + file;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // the thread ended meanwhile
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    each(buf);
  }
  closedir(tasks);
}

}  // namespace

double ProcessCpuWaitSeconds() {
  int64_t total = 0;
  ForEachThread("schedstat", [&total](const char* text) {
    if (const std::optional<int64_t> delay = ParseRunDelay(text)) total += *delay;
  });
  return static_cast<double>(total) / 1e9;
}

std::optional<int> ParseProcsRunning(const std::string& proc_stat) {
  static constexpr char kKey[] = "\nprocs_running ";
  const size_t at = proc_stat.find(kKey);
  if (at == std::string::npos) return std::nullopt;
  const char* p = proc_stat.c_str() + at + sizeof kKey - 1;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(p, &end, 10);
  if (end == p || errno != 0 || n < 0 || (*end != '\n' && *end != '\0')) return std::nullopt;
  return static_cast<int>(n);
}

char ParseTaskState(const std::string& stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 1] != ' ') return '?';
  return stat[close + 2];
}

int OtherRunnableThreads(int samples, std::chrono::milliseconds gap) {
  int fewest = -1;
  for (int i = 0; i < samples; ++i) {
    if (i > 0) std::this_thread::sleep_for(gap);
    std::string text;
    if (!ReadFile("/proc/stat", &text).ok()) return 0;
    const std::optional<int> running = ParseProcsRunning(text);
    if (!running) return 0;
    int own = 0;
    ForEachThread("stat", [&own](const char* line) { own += ParseTaskState(line) == 'R' ? 1 : 0; });
    const int others = std::max(0, *running - own);
    fewest = fewest < 0 ? others : std::min(fewest, others);
  }
  return std::max(0, fewest);
}

}  // namespace petname::launch
