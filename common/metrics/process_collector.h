// The standard process_* metrics (as the official Go and Python clients export them) for
// the current Linux process, read from /proc on every scrape, with the rank's constant
// labels. prometheus-cpp does not provide them.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/collectable.h>
#include <prometheus/labels.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <string>
#include <vector>

namespace petname::metrics {

// The fields of /proc/<pid>/stat that the process metrics need, in the kernel's units.
struct ProcStat {
  uint64_t utime_ticks = 0;
  uint64_t stime_ticks = 0;
  uint64_t start_ticks = 0;  // since boot
  uint64_t vsize_bytes = 0;
  int64_t rss_pages = 0;
};

// Parses the contents of /proc/<pid>/stat. Returns false when the text is malformed. The
// command name may contain spaces and parentheses; fields are counted after its last ')'.
bool ParseProcStat(const std::string& text, ProcStat* out);

// One counter or gauge sample with `labels`, for collectors that build their families at
// scrape time.
prometheus::ClientMetric Sample(prometheus::MetricType type, const prometheus::Labels& labels,
                                double value);

// Reads "btime" (boot time, Unix seconds) from the contents of /proc/stat; false if absent.
bool ParseBootTime(const std::string& text, int64_t* out);

class ProcessCollector : public prometheus::Collectable {
 public:
  explicit ProcessCollector(prometheus::Labels labels);

  // process_cpu_seconds_total, process_resident_memory_bytes,
  // process_virtual_memory_bytes, process_start_time_seconds, process_open_fds and
  // process_max_fds. A value that cannot be read is left out of that scrape.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  prometheus::Labels labels_;
};

}  // namespace petname::metrics
