// The operator's progress scraper reads what the trainer really exports: a TrainingMetrics
// registry, serialised as the trainer's /metrics serves it, gives back the numbers the training
// loop reported.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <string>

#include "common/metrics/process_collector.h"
#include "operator/progress/progress_scraper.h"
#include "operator/progress/trainer_progress.h"
#include "trainer/metrics/training_metrics.h"

namespace petname::progress {
namespace {

std::string Exposition(const metrics::TrainingMetrics& m) {
  return prometheus::TextSerializer().Serialize(m.registry()->Collect());
}

// The longest labels a rank's series may carry (Kubernetes' name limits, a sweep's 43 characters).
metrics::RankLabels LongestLabels() {
  return {"a-job-name-of-the-longest-kind-that-kubernetes-allows-in-a-label",
          "a-namespace-name-of-the-longest-kind-kubernetes-allows-in-labels", 0,
          "a-sweep-name-of-43-characters-the-most-it-may"};
}

// Reports a 3-epoch run of 64 ranks at its end: every training series but the checkpoint
// failures has a value.
void TouchEveryTrainingSeries(metrics::TrainingMetrics* m) {
  metrics::RunInfo info;
  info.world_size = 64;
  info.epochs_planned = 3;
  m->SetInfo(info);
  m->OnStep(2.5, 4096, 0.5, 0.01);
  m->OnEpoch(3, 1.5, 70, 210);
  m->OnValidation(1.4, 0.6);
  m->OnCheckpoint(0.5, 1795000000);
  m->OnGoalReached(140, 1794999900);
}

TEST(TrainerExpositionTest, SampleFromTheTrainersOwnMetrics) {
  metrics::TrainingMetrics m({"pets", "ml", 0, ""});
  metrics::RunInfo info;
  info.world_size = 2;
  info.epochs_planned = 5;
  m.SetInfo(info);
  m.OnStep(2.5, 4096, 0.5, 0.01);

  Sample before = SampleFromExposition(Exposition(m));
  ASSERT_TRUE(before.valid);
  EXPECT_EQ(before.epoch, 0);
  EXPECT_EQ(before.epochs, 5);
  EXPECT_DOUBLE_EQ(before.train_loss, 2.5);  // the last step's loss before epoch 1
  EXPECT_DOUBLE_EQ(before.samples_total, 4096);
  EXPECT_EQ(before.world_size, 2);
  EXPECT_EQ(before.checkpoint_unix, 0);

  m.OnEpoch(1, 2.25, 70, 70);
  m.OnValidation(2.0, 0.45);
  m.OnCheckpoint(0.5, 1795000000);
  Sample after = SampleFromExposition(Exposition(m));
  ASSERT_TRUE(after.valid);
  EXPECT_EQ(after.epoch, 1);
  EXPECT_DOUBLE_EQ(after.train_loss, 2.25);  // the epoch's mean loss from epoch 1 on
  EXPECT_DOUBLE_EQ(after.validation_loss, 2.0);
  EXPECT_DOUBLE_EQ(after.validation_accuracy, 0.45);
  EXPECT_DOUBLE_EQ(after.checkpoint_unix, 1795000000);
  EXPECT_EQ(after.checkpoint_failures, 0);

  m.OnCheckpointFailure("no_space");
  m.OnCheckpointFailure("no_space");
  m.OnCheckpointFailure("io_error");
  Sample failing = SampleFromExposition(Exposition(m));
  EXPECT_DOUBLE_EQ(failing.checkpoint_failures, 3);  // every reason counts
  EXPECT_EQ(ProgressFromSample(failing, &after, 1).checkpoint_failures, std::optional<int64_t>(3));
}

// What rank 0 leaves as its termination message holds the whole progress, fits in the 4096
// bytes Kubernetes keeps, and carries no series the progress does not need.
TEST(TrainerExpositionTest, TerminationMessageGivesTheFinalProgress) {
  metrics::TrainingMetrics m(LongestLabels());
  TouchEveryTrainingSeries(&m);
  m.OnCheckpointFailure("no_space");
  const std::string message = m.ProgressExposition();
  EXPECT_LT(message.size(), 4096u);
  EXPECT_EQ(message.find("petname_step_duration_seconds"), std::string::npos);

  api::Progress scraped;
  scraped.epoch = 2;
  scraped.samples_per_second = 9000;
  const std::optional<api::Progress> last = FinalProgress(message, scraped);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->epoch, 3);
  EXPECT_EQ(last->epochs, 3);
  EXPECT_EQ(last->train_loss, std::optional<double>(1.5));
  EXPECT_EQ(last->validation_loss, std::optional<double>(1.4));
  EXPECT_EQ(last->validation_accuracy, std::optional<double>(0.6));
  EXPECT_EQ(last->samples_per_second, std::optional<double>(9000));  // from the scrape
  EXPECT_EQ(last->last_checkpoint_time, std::optional<int64_t>(1795000000));
  EXPECT_EQ(last->checkpoint_failures, std::optional<int64_t>(1));
  EXPECT_EQ(last->goal_reached_training_seconds, std::optional<double>(140));
  EXPECT_EQ(last->goal_reached_time, std::optional<int64_t>(1794999900));

  EXPECT_FALSE(FinalProgress("petname: error: out of memory\n", scraped).has_value());
  EXPECT_FALSE(FinalProgress("", std::nullopt).has_value());
}

// A rank's whole /metrics (every training series touched, the longest labels, the process
// series) is a small fraction of what the scraper reads at most by default.
TEST(TrainerExpositionTest, AWholeRankExpositionIsFarBelowTheScrapeCap) {
  metrics::TrainingMetrics m(LongestLabels());
  TouchEveryTrainingSeries(&m);
  for (const char* reason : {"no_space", "io_error", "permission"}) m.OnCheckpointFailure(reason);
  std::vector<prometheus::MetricFamily> families = m.registry()->Collect();
  for (auto& f : metrics::ProcessCollector(m.labels()).Collect()) families.push_back(std::move(f));
  const std::string text = prometheus::TextSerializer().Serialize(families);
  RecordProperty("exposition_bytes", static_cast<int>(text.size()));
  EXPECT_LT(text.size(), ScrapeLimits{}.get.max_body_bytes / 16) << text.size();
}

}  // namespace
}  // namespace petname::progress
