#include "trainer/report/loss_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"
#include "trainer/report/svg_chart.h"

namespace petname::report {
namespace {

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

metrics::EpochRecord Record(int epoch, double elapsed, double train, double validation) {
  metrics::EpochRecord r;
  r.epoch = epoch;
  r.elapsed_seconds = elapsed;
  r.train_loss = train;
  r.validation_loss = validation;
  r.world_size = 2;
  return r;
}

TEST(SvgChartTest, NiceTicksCoverTheRangeWithRoundSteps) {
  EXPECT_EQ(NiceTicks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const std::vector<double> ticks = NiceTicks(1.52, 2.31, 5);
  EXPECT_LE(ticks.front(), 1.52);
  EXPECT_GE(ticks.back(), 2.31);
  EXPECT_NEAR(ticks[1] - ticks[0], 0.2, 1e-12);
  const std::vector<double> flat = NiceTicks(3, 3, 5);
  EXPECT_LT(flat.front(), 3);
  EXPECT_GT(flat.back(), 3);
}

TEST(SvgChartTest, EscapesText) {
  EXPECT_EQ(XmlEscape("a<b & \"c\">'"), "a&lt;b &amp; &quot;c&quot;&gt;&apos;");
}

TEST(SvgChartTest, SkipsNonFinitePoints) {
  Chart chart{"t", "x", "y", {{"s", "red", {1, 2, 3}, {1, std::nan(""), 3}}}};
  const std::string svg = RenderChart(chart, 0, 0, 400, 300);
  EXPECT_EQ(Count(svg, "<circle"), 2);
}

TEST(LossReportTest, LastRecordPerEpochWins) {
  const auto records =
      LatestPerEpoch({Record(1, 10, 2.0, 1.9), Record(2, 20, 1.8, 1.7), Record(2, 25, 1.75, 1.65)});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].elapsed_seconds, 25);
}

TEST(LossReportTest, RendersBothChartsWithOnePointPerEpoch) {
  const std::string svg = RenderLossReport(
      {Record(1, 70, 2.0, 1.85), Record(2, 140, 1.7, 1.65), Record(3, 210, 1.6, 1.6)}, "run <1>");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("run &lt;1&gt;"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 3);  // train and validation by epoch, validation by time
  EXPECT_EQ(Count(svg, "<circle"), 9);
  EXPECT_NE(svg.find("Time to accuracy"), std::string::npos);
}

TEST(LossReportTest, WritesTheReportFromACheckpointDirectory) {
  const petname::testing::TempDir tmp;
  const std::filesystem::path dir = tmp.fs_path();
  const std::string log = (dir / metrics::kMetricsLogName).string();
  const std::string out = (dir / "loss.svg").string();

  EXPECT_EQ(WriteLossReport(dir.string(), out).code(), Status::Code::kNotFound);
  ASSERT_TRUE(WriteFileAtomically(log, "").ok());
  EXPECT_EQ(WriteLossReport(dir.string(), out).code(), Status::Code::kFailedPrecondition);
  ASSERT_TRUE(WriteFileAtomically(log, "garbage\n").ok());
  EXPECT_EQ(WriteLossReport(dir.string(), out).code(), Status::Code::kCorruption);
  EXPECT_FALSE(std::filesystem::exists(out));

  ASSERT_TRUE(WriteFileAtomically(log, "").ok());
  ASSERT_TRUE(metrics::AppendEpochRecord(log, Record(1, 70, 2.0, 1.85)).ok());
  ASSERT_TRUE(WriteLossReport(dir.string(), out).ok());
  std::string svg;
  ASSERT_TRUE(ReadFile(out, &svg).ok());
  EXPECT_NE(svg.find("1 epochs, 2 rank(s)"), std::string::npos);
}

}  // namespace
}  // namespace petname::report
