// `petname report --sweep`: rendering from a sweep status, and loading a bare volume of trial
// checkpoint directories (hand-written metrics.jsonl and manifests).
#include "trainer/report/sweep_report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::report {
namespace {

using sweep::SweepStatus;
using sweep::TrialRecord;
using testing::TempDir;

TrialRecord Trial(const std::string& name, int ranks, double samples_per_second,
                  double time_to_goal) {
  TrialRecord r;
  r.trial.name = name;
  r.trial.phase = sweep::TrialPhase::kSucceeded;
  r.trial.samples_per_second = samples_per_second;
  r.trial.time_to_goal_seconds = time_to_goal;
  r.ranks = ranks;
  r.batch_size_per_rank = 4096 / ranks;
  r.points = {{1, 10, 11, 2.0, 0.4}, {2, 20, 21, 1.8, 0.5}};
  return r;
}

SweepStatus TwoRankCounts() {
  SweepStatus s;
  s.name = "grid <&>";
  s.phase = "Succeeded";
  s.objective.has_goal = true;
  s.objective.goal = 1.9;
  s.trials = {Trial("g-000", 1, 1000, 20), Trial("g-001", 2, 1800, sweep::kNaN)};
  s.trials[1].trial.message = "<script>";
  s.best = 0;
  return s;
}

TEST(SweepReportTest, SvgHasEveryTrialTheGoalBarsAndScaling) {
  const std::string svg = RenderSweepSvg(TwoRankCounts());
  EXPECT_NE(svg.find("Sweep grid &lt;&amp;&gt;: 2 trials, best g-000"), std::string::npos);
  EXPECT_NE(svg.find("Validation loss against wall time"), std::string::npos);
  EXPECT_NE(svg.find("validationLoss &lt;= 1.9"), std::string::npos);
  EXPECT_NE(svg.find("20.0 s"), std::string::npos);
  EXPECT_NE(svg.find("goal not reached"), std::string::npos);
  EXPECT_NE(svg.find("Speed-up at equal global batch"), std::string::npos);
  EXPECT_NE(svg.find("global batch 4096"), std::string::npos);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
}

TEST(SweepReportTest, WithoutEqualGlobalBatchesScalingIsAtEqualBatchPerRank) {
  SweepStatus s = TwoRankCounts();
  s.trials[1].batch_size_per_rank = 4096;  // global batches 4096 and 8192
  const std::string svg = RenderSweepSvg(s);
  EXPECT_EQ(svg.find("Speed-up at equal global batch"), std::string::npos);
  EXPECT_NE(svg.find("Speed-up at equal batch per rank"), std::string::npos);
  EXPECT_NE(svg.find("batch per rank 4096"), std::string::npos);
}

TEST(SweepReportTest, HtmlEscapesAndMarksTheBest) {
  const SweepStatus s = TwoRankCounts();
  const std::string html = RenderSweepHtml(s, RenderSweepSvg(s));
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"best\"><td>g-000</td>"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);  // the SVG is inline
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(SweepReportTest, WithoutScalingDataTheChartSaysSo) {
  SweepStatus s = TwoRankCounts();
  s.trials.pop_back();
  EXPECT_NE(RenderSweepSvg(s).find("no batch was trained at two or more rank counts"),
            std::string::npos);
}

void WriteTrialDir(const std::string& dir, int world_size, int64_t batch, double lr,
                   const std::vector<double>& losses) {
  std::filesystem::create_directories(dir + "/epoch-000001");
  for (size_t e = 0; e < losses.size(); ++e) {
    metrics::EpochRecord r;
    r.epoch = static_cast<int>(e + 1);
    r.validation_loss = losses[e];
    r.validation_accuracy = 0.5;
    r.elapsed_seconds = 10.0 * static_cast<double>(e + 1);
    r.samples_per_second = 1000.0 * world_size;
    r.world_size = world_size;
    ASSERT_TRUE(metrics::AppendEpochRecord(dir + "/metrics.jsonl", r).ok());
  }
  checkpoint::Manifest m = checkpoint::SampleManifest(1);
  m.world_size = world_size;
  m.hyper.batch_size = batch;
  m.hyper.learning_rate = lr;
  ASSERT_TRUE(WriteFileAtomically(dir + "/epoch-000001/manifest.json", ManifestToJson(m, "")).ok());
}

TEST(SweepReportTest, ABareVolumeOfTrialDirectoriesIsAReport) {
  const TempDir volume;
  WriteTrialDir(volume.Join("vol-000"), 1, 4096, 0.001, {2.0, 1.9});
  WriteTrialDir(volume.Join("vol-001"), 4, 1024, 0.004, {1.8, 1.7});
  std::filesystem::create_directories(volume.Join("not-a-trial"));
  SweepStatus s;
  ASSERT_TRUE(LoadSweep(volume.path(), &s).ok());
  ASSERT_EQ(s.trials.size(), 2u);
  EXPECT_EQ(s.trials[1].trial.name, "vol-001");
  EXPECT_EQ(s.trials[1].ranks, 4);
  EXPECT_EQ(s.trials[1].batch_size_per_rank, 1024);
  EXPECT_EQ(sweep::DescribeAssignment(s.trials[1].trial.parameters),
            "ranks=4 training.batchSizePerReplica=1024 training.learningRate=0.004");
  EXPECT_DOUBLE_EQ(s.trials[1].trial.best_validation_loss, 1.7);
  EXPECT_EQ(s.best, 1);

  const TempDir out;
  std::vector<std::string> written;
  ASSERT_TRUE(WriteSweepReport(volume.path(), out.Join("r"), &written).ok());
  ASSERT_EQ(written.size(), 2u);
  std::string svg;
  ASSERT_TRUE(ReadFile(out.Join("r/sweep.svg"), &svg).ok());
  EXPECT_NE(svg.find("training time if unknown"), std::string::npos);
  EXPECT_NE(svg.find("global batch 4096"), std::string::npos);
}

TEST(SweepReportTest, AnEmptyDirectoryIsNotFound) {
  const TempDir empty;
  SweepStatus s;
  EXPECT_EQ(LoadSweep(empty.path(), &s).code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace petname::report
