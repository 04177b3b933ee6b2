#include "operator/progress/trainer_progress.h"

#include <gtest/gtest.h>

#include <cmath>

namespace petname::progress {
namespace {

// The shape of a rank's exposition (labels as the trainer sets them).
const char kAfterEpoch2[] = R"(# HELP petname_epoch Epochs completed.
# TYPE petname_epoch gauge
petname_epoch{job="j",namespace="ns",rank="0"} 2
petname_epochs_planned{job="j",namespace="ns",rank="0"} 5
petname_train_loss{job="j",namespace="ns",rank="0"} 1.9
petname_train_epoch_loss{job="j",namespace="ns",rank="0"} 2.25
petname_validation_loss{job="j",namespace="ns",rank="0"} 2.5
petname_validation_accuracy{job="j",namespace="ns",rank="0"} 0.4
petname_train_samples_total{job="j",namespace="ns",rank="0"} 10000
petname_world_size{job="j",namespace="ns",rank="0"} 2
petname_checkpoint_last_success_timestamp_seconds{job="j",namespace="ns",rank="0"} 1795000000
petname_step_duration_seconds_bucket{job="j",le="0.1"} 3
)";

TEST(TrainerProgressTest, ParsesFirstSampleOfEachName) {
  auto m = ParseExposition(
      "# c\na 1\nb{x=\"}\",y=\"\\\"\"} 2\nb{x=\"2\"} 3\nbad\nc{ 4\nd NaN\ne +Inf\n");
  EXPECT_EQ(m.at("a"), 1);
  EXPECT_EQ(m.at("b"), 2);
  EXPECT_EQ(m.count("bad"), 0u);
  EXPECT_EQ(m.count("c"), 0u);
  EXPECT_TRUE(std::isnan(m.at("d")));
  EXPECT_TRUE(std::isinf(m.at("e")));
}

TEST(TrainerProgressTest, ProgressFromTwoScrapes) {
  Sample before = SampleFromExposition(kAfterEpoch2);
  ASSERT_TRUE(before.valid);
  std::string later = kAfterEpoch2;
  later.replace(later.find("} 10000"), 7, "} 15000");
  Sample now = SampleFromExposition(later);
  api::Progress p = ProgressFromSample(now, &before, 2.0);
  EXPECT_EQ(p.epoch, 2);
  EXPECT_EQ(p.epochs, 5);
  EXPECT_EQ(p.train_loss, std::optional<double>(2.25));
  EXPECT_EQ(p.validation_loss, std::optional<double>(2.5));
  EXPECT_EQ(p.validation_accuracy, std::optional<double>(0.4));
  EXPECT_EQ(p.samples_per_second, std::optional<double>(5000));  // 2,500/s on rank 0 x 2 ranks
  EXPECT_EQ(p.last_checkpoint_time, std::optional<int64_t>(1795000000));
  EXPECT_FALSE(p.update_time);
  nlohmann::json j = api::ProgressToJson(p);
  EXPECT_EQ(j["lastCheckpointTime"], "2026-11-18T11:06:40Z");
  EXPECT_EQ(j["samplesPerSecond"], 5000);
  EXPECT_FALSE(j.contains("updateTime"));
  EXPECT_FALSE(ProgressFromSample(now, nullptr, 0).samples_per_second);
  EXPECT_FALSE(ProgressFromSample(before, &now, 2.0).samples_per_second);  // counter reset
}

TEST(TrainerProgressTest, BeforeTheFirstEpoch) {
  Sample s = SampleFromExposition(
      "petname_epoch 0\npetname_epochs_planned 3\npetname_train_loss 3.1\n"
      "petname_validation_loss NaN\npetname_checkpoint_last_success_timestamp_seconds 0\n");
  api::Progress p = ProgressFromSample(s, nullptr, 0);
  EXPECT_EQ(p.epoch, 0);
  EXPECT_EQ(p.train_loss, std::optional<double>(3.1));
  EXPECT_FALSE(p.validation_loss);
  EXPECT_FALSE(p.last_checkpoint_time);
  nlohmann::json j = api::ProgressToJson(p);
  EXPECT_FALSE(j.contains("validationLoss"));
  EXPECT_FALSE(j.contains("lastCheckpointTime"));
}

TEST(TrainerProgressTest, CheckpointFailuresAddUpOverReasons) {
  EXPECT_EQ(SumOfSeries("a{r=\"x\"} 2\nab 7\na{r=\"y\"} 1\n# a 9\n", "a"), 3);
  Sample ok = SampleFromExposition(kAfterEpoch2);
  EXPECT_FALSE(ProgressFromSample(ok, nullptr, 0).checkpoint_failures);
  EXPECT_FALSE(
      api::ProgressToJson(ProgressFromSample(ok, nullptr, 0)).contains("checkpointFailures"));
  const std::string failing = std::string(kAfterEpoch2) +
                              "petname_checkpoint_failures_total{job=\"j\",namespace=\"ns\",rank="
                              "\"0\",reason=\"no_space\"} 2\n"
                              "petname_checkpoint_failures_total{job=\"j\",namespace=\"ns\",rank="
                              "\"0\",reason=\"read_only\"} 1\n";
  api::Progress p = ProgressFromSample(SampleFromExposition(failing), nullptr, 0);
  EXPECT_EQ(p.checkpoint_failures, std::optional<int64_t>(3));
  EXPECT_EQ(api::ProgressToJson(p)["checkpointFailures"], 3);
}

TEST(TrainerProgressTest, GoalReachedOnlyOnceTheTrainerSaysSo) {
  api::Progress before = ProgressFromSample(SampleFromExposition(kAfterEpoch2), nullptr, 0);
  EXPECT_FALSE(before.goal_reached_training_seconds);
  EXPECT_FALSE(api::ProgressToJson(before).contains("goalReachedTime"));
  const std::string reached = std::string(kAfterEpoch2) +
                              "petname_goal_reached_training_seconds 151.5\n"
                              "petname_goal_reached_timestamp_seconds 1795000100\n";
  api::Progress p = ProgressFromSample(SampleFromExposition(reached), nullptr, 0);
  EXPECT_EQ(p.goal_reached_training_seconds, std::optional<double>(151.5));
  EXPECT_EQ(p.goal_reached_time, std::optional<int64_t>(1795000100));
  const nlohmann::json j = api::ProgressToJson(p);
  EXPECT_EQ(j["goalReachedTrainingSeconds"], 151.5);
  EXPECT_EQ(api::JobStatusFromJson({{"progress", j}}).progress, p);
}

TEST(TrainerProgressTest, NotATrainerExposition) {
  EXPECT_FALSE(SampleFromExposition("process_open_fds 7\n").valid);
  EXPECT_FALSE(SampleFromExposition("").valid);
}

// Values a hostile or broken endpoint may expose: none is cast to an integer out of range (the
// sanitizer build runs this under UBSan), and none reaches status.progress.
TEST(TrainerProgressTest, NonFiniteAndOutOfRangeValuesAreLeftOut) {
  for (const char* bad : {"1e300", "-1e300", "nan", "NaN", "+Inf", "-inf", "-1", "1e19"}) {
    const std::string v = bad;
    const Sample s =
        SampleFromExposition("petname_epochs_planned " + v + "\npetname_epoch " + v +
                             "\npetname_world_size " + v + "\npetname_train_samples_total " + v +
                             "\npetname_checkpoint_last_success_timestamp_seconds " + v +
                             "\npetname_checkpoint_failures_total{reason=\"io\"} " + v +
                             "\npetname_goal_reached_timestamp_seconds " + v + "\n");
    ASSERT_TRUE(s.valid) << v;
    EXPECT_EQ(s.epochs, 0) << v;
    EXPECT_EQ(s.epoch, 0) << v;
    EXPECT_EQ(s.world_size, 1) << v;
    EXPECT_EQ(s.checkpoint_unix, 0) << v;
    EXPECT_EQ(s.checkpoint_failures, 0) << v;
    EXPECT_EQ(s.goal_unix, 0) << v;
    Sample prev = s;
    prev.samples_total = 0;
    const api::Progress p = ProgressFromSample(s, &prev, 1e-300);
    EXPECT_EQ(p.epoch, std::optional<int64_t>(0)) << v;
    EXPECT_FALSE(p.last_checkpoint_time.has_value()) << v;
    EXPECT_FALSE(p.checkpoint_failures.has_value()) << v;
    EXPECT_FALSE(p.goal_reached_time.has_value()) << v;
    EXPECT_FALSE(p.samples_per_second.has_value() && !std::isfinite(*p.samples_per_second)) << v;
  }
}

TEST(TrainerProgressTest, ASampleBuiltWithHugeValuesGivesNoTimes) {
  Sample s;
  s.valid = true;
  s.checkpoint_unix = 1e300;
  s.checkpoint_failures = NAN;
  s.goal_unix = 253402300800.0;  // one second after 9999-12-31T23:59:59Z
  const api::Progress p = ProgressFromSample(s, nullptr, 0);
  EXPECT_FALSE(p.last_checkpoint_time.has_value());
  EXPECT_FALSE(p.checkpoint_failures.has_value());
  EXPECT_FALSE(p.goal_reached_time.has_value());
  s.goal_unix = 253402300799.0;
  EXPECT_EQ(ProgressFromSample(s, nullptr, 0).goal_reached_time,
            std::optional<int64_t>(253402300799));
}

}  // namespace
}  // namespace petname::progress
