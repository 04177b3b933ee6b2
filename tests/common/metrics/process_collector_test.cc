#include "common/metrics/process_collector.h"

#include <gtest/gtest.h>

#include <set>

namespace petname::metrics {
namespace {

TEST(ProcessCollectorTest, ParsesStatWithSpacesAndParensInTheCommand) {
  const std::string text =
      "4242 (pet (name) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 3 0 "
      "123456 987654321 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  ProcStat stat;
  ASSERT_TRUE(ParseProcStat(text, &stat));
  EXPECT_EQ(stat.utime_ticks, 250u);
  EXPECT_EQ(stat.stime_ticks, 75u);
  EXPECT_EQ(stat.start_ticks, 123456u);
  EXPECT_EQ(stat.vsize_bytes, 987654321u);
  EXPECT_EQ(stat.rss_pages, 2048);
}

TEST(ProcessCollectorTest, RejectsMalformedStat) {
  ProcStat stat;
  EXPECT_FALSE(ParseProcStat("", &stat));
  EXPECT_FALSE(ParseProcStat("12 (x) S 1 2 3", &stat));
  EXPECT_FALSE(
      ParseProcStat("12 (x) S 1 2 3 4 5 6 7 8 9 10 abc 12 13 14 15 16 17 18 19 20 21 22", &stat));
}

TEST(ProcessCollectorTest, ParsesBootTime) {
  int64_t boot = 0;
  EXPECT_TRUE(ParseBootTime("cpu  1 2 3\nintr 5 6\nbtime 1763779000\nprocesses 9\n", &boot));
  EXPECT_EQ(boot, 1763779000);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\n", &boot));
}

TEST(ProcessCollectorTest, CollectsTheStandardFamiliesForThisProcess) {
  ProcessCollector collector({{"job", "pets"}, {"rank", "0"}});
  std::set<std::string> names;
  for (const auto& family : collector.Collect()) {
    names.insert(family.name);
    ASSERT_EQ(family.metric.size(), 1u);
    EXPECT_EQ(family.metric[0].label.size(), 2u);
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"process_cpu_seconds_total", "process_resident_memory_bytes",
                                   "process_virtual_memory_bytes", "process_start_time_seconds",
                                   "process_open_fds", "process_max_fds"}));
}

}  // namespace
}  // namespace petname::metrics
