#include "common/metrics/process_collector.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <sstream>
#include <utility>

#include "common/file_util.h"

namespace petname::metrics {
namespace {

prometheus::MetricFamily Family(const std::string& name, const std::string& help,
                                prometheus::MetricType type, const prometheus::Labels& labels,
                                double value) {
  return {name, help, type, {Sample(type, labels, value)}};
}

int CountOpenFds() {
  std::error_code ec;
  int count = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++count;
  }
  return ec ? -1 : count;
}

}  // namespace

prometheus::ClientMetric Sample(prometheus::MetricType type, const prometheus::Labels& labels,
                                double value) {
  prometheus::ClientMetric metric;
  for (const auto& [label, label_value] : labels) metric.label.push_back({label, label_value});
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return metric;
}

bool ParseProcStat(const std::string& text, ProcStat* out) {
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  // After the command: field 3 (state) onwards; utime is field 14, rss field 24.
  std::istringstream in(text.substr(close + 1));
  std::string field;
  ProcStat stat;
  for (int index = 3; index <= 24; ++index) {
    if (!(in >> field)) return false;
    try {
      switch (index) {
        case 14:
          stat.utime_ticks = std::stoull(field);
          break;
        case 15:
          stat.stime_ticks = std::stoull(field);
          break;
        case 22:
          stat.start_ticks = std::stoull(field);
          break;
        case 23:
          stat.vsize_bytes = std::stoull(field);
          break;
        case 24:
          stat.rss_pages = std::stoll(field);
          break;
        default:
          break;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  *out = stat;
  return true;
}

bool ParseBootTime(const std::string& text, int64_t* out) {
  std::istringstream in(text);
  std::string key;
  while (in >> key) {
    if (key == "btime") return static_cast<bool>(in >> *out);
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return false;
}

ProcessCollector::ProcessCollector(prometheus::Labels labels) : labels_(std::move(labels)) {}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  std::string text;
  ProcStat stat;
  if (ReadFile("/proc/self/stat", &text).ok() && ParseProcStat(text, &stat)) {
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    families.push_back(Family("process_cpu_seconds_total",
                              "Total user and system CPU time spent in seconds.",
                              MetricType::Counter, labels_,
                              static_cast<double>(stat.utime_ticks + stat.stime_ticks) / ticks));
    families.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                              MetricType::Gauge, labels_,
                              static_cast<double>(stat.rss_pages) * page));
    families.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                              MetricType::Gauge, labels_, static_cast<double>(stat.vsize_bytes)));
    int64_t boot = 0;
    if (ReadFile("/proc/stat", &text).ok() && ParseBootTime(text, &boot)) {
      families.push_back(Family(
          "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
          MetricType::Gauge, labels_,
          static_cast<double>(boot) + static_cast<double>(stat.start_ticks) / ticks));
    }
  }
  const int open_fds = CountOpenFds();
  if (open_fds >= 0) {
    families.push_back(Family("process_open_fds", "Number of open file descriptors.",
                              MetricType::Gauge, labels_, open_fds));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    families.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                              MetricType::Gauge, labels_, static_cast<double>(limit.rlim_cur)));
  }
  return families;
}

}  // namespace petname::metrics
