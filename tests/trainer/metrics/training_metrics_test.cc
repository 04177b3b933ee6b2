#include "trainer/metrics/training_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <set>
#include <string>

namespace petname::metrics {
namespace {

std::string Exposition(const TrainingMetrics& metrics) {
  return prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
}

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

constexpr char kLabels[] = "job=\"pets\",namespace=\"ml\",rank=\"1\"";

TEST(TrainingMetricsTest, StepUpdatesCountersGaugeAndHistograms) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.OnStep(2.5, 4096, 0.9, 0.01);
  metrics.OnStep(2.25, 4096, 1.1, 0.02);
  const std::string text = Exposition(metrics);
  EXPECT_TRUE(Contains(text, std::string("petname_train_loss{") + kLabels + "} 2.25"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_samples_total{") + kLabels + "} 8192"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_steps_total{") + kLabels + "} 2"));
  EXPECT_TRUE(
      Contains(text, std::string("petname_step_duration_seconds_count{") + kLabels + "} 2"));
  EXPECT_TRUE(Contains(text, std::string("petname_step_duration_seconds_sum{") + kLabels + "} 2"));
  EXPECT_TRUE(Contains(
      text, "petname_step_duration_seconds_bucket{" + std::string(kLabels) + ",le=\"1.024\"} 1"));
  EXPECT_TRUE(
      Contains(text, std::string("petname_allreduce_wait_seconds_count{") + kLabels + "} 2"));
}

// A trial of a sweep: every series also carries the sweep's name.
TEST(TrainingMetricsTest, SweepTrialsCarryTheSweepLabel) {
  TrainingMetrics metrics({"grid-001", "ml", 0, "grid"});
  metrics.OnStep(2.5, 4096, 0.9, 0.01);
  EXPECT_TRUE(Contains(Exposition(metrics),
                       "petname_train_loss{job=\"grid-001\",namespace=\"ml\",rank=\"0\","
                       "sweep=\"grid\"} 2.5"));
}

TEST(TrainingMetricsTest, InfoCarriesRunFacts) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.SetInfo({"gloo", "bf16", "cpu", "0.1.0", 2, 10, 3, 2, 4});
  const std::string text = Exposition(metrics);
  EXPECT_TRUE(Contains(text, "petname_training_info{" + std::string(kLabels) +
                                 ",backend=\"gloo\",device=\"cpu\",precision=\"bf16\","
                                 "version=\"0.1.0\"} 1"));
  EXPECT_TRUE(Contains(text, std::string("petname_world_size{") + kLabels + "} 2"));
  EXPECT_TRUE(Contains(text, std::string("petname_epochs_planned{") + kLabels + "} 10"));
  EXPECT_TRUE(Contains(text, std::string("petname_restarts{") + kLabels + "} 3"));
  EXPECT_TRUE(Contains(text, std::string("petname_checkpoint_interval_epochs{") + kLabels + "} 2"));
  EXPECT_TRUE(Contains(text, std::string("petname_intra_op_threads{") + kLabels + "} 4"));
  metrics.SetThreads(1);  // fewer while the threads wait for a CPU (train/thread_tuner.h)
  EXPECT_TRUE(
      Contains(Exposition(metrics), std::string("petname_intra_op_threads{") + kLabels + "} 1"));
}

// The family names of an exposition.
std::set<std::string> Families(const TrainingMetrics& metrics) {
  std::set<std::string> names;
  for (const prometheus::MetricFamily& f : metrics.registry()->Collect()) names.insert(f.name);
  return names;
}

// Every family is served from the first scrape on: nothing appears once training runs.
TEST(TrainingMetricsTest, EveryFamilyIsServedBeforeTheFirstStep) {
  for (const char* device : {"cpu", "cuda"}) {
    TrainingMetrics metrics({"pets", "ml", 1, ""});
    metrics.SetInfo({"nccl", "fp32", device, "0.1.0", 2, 10, 0, 1, 4});
    const std::set<std::string> before = Families(metrics);
    metrics.OnStep(2.5, 4096, 0.9, 0.01);
    metrics.SetLearningRate(0.001);
    metrics.OnEpoch(1, 2.0, 70.5, 140.25);
    metrics.OnValidation(1.85, 0.5);
    metrics.OnCheckpoint(0.25, 1700000000);
    metrics.OnCheckpointFailure("no_space");
    metrics.OnGoalReached(42.5, 1700000000);
    metrics.SetGpuMemory(1024, 2048);
    EXPECT_EQ(Families(metrics), before) << device;
    EXPECT_EQ(before.count("petname_gpu_memory_allocated_bytes"),
              std::string(device) == "cuda" ? 1u : 0u);
  }
}

// Before their first event, gauges that have no value are NaN (no made-up zero) and every
// failure reason counts 0.
TEST(TrainingMetricsTest, EventSeriesAreNanUntilTheirFirstEvent) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.SetInfo({"nccl", "fp32", "cuda", "0.1.0", 2, 10, 0, 1, 4});
  const std::string text = Exposition(metrics);
  for (const char* name :
       {"petname_train_epoch_loss", "petname_epoch_duration_seconds", "petname_validation_loss",
        "petname_validation_accuracy", "petname_checkpoint_write_seconds",
        "petname_checkpoint_last_success_timestamp_seconds",
        "petname_goal_reached_training_seconds", "petname_goal_reached_timestamp_seconds",
        "petname_gpu_memory_allocated_bytes", "petname_gpu_memory_reserved_bytes"}) {
    EXPECT_TRUE(Contains(text, std::string(name) + "{" + kLabels + "} Nan")) << name;
  }
  EXPECT_TRUE(Contains(text, std::string("petname_epoch{") + kLabels + "} 0"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_elapsed_seconds{") + kLabels + "} 0"));
  for (const char* reason : {"no_space", "read_only", "permission", "io_error"}) {
    EXPECT_TRUE(Contains(text, "petname_checkpoint_failures_total{" + std::string(kLabels) +
                                   ",reason=\"" + reason + "\"} 0"))
        << reason;
  }
}

TEST(TrainingMetricsTest, EventSeriesTakeTheirEventsValues) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.SetInfo({"nccl", "fp32", "cuda", "0.1.0", 2, 10, 0, 1, 4});
  metrics.OnEpoch(1, 2.0, 70.5, 140.25);
  metrics.OnValidation(1.85, 0.5);
  metrics.OnCheckpoint(0.25, 1700000000);
  metrics.SetGpuMemory(1024, 2048);
  metrics.SetLearningRate(0.001);
  std::string text = Exposition(metrics);
  EXPECT_TRUE(Contains(text, std::string("petname_epoch{") + kLabels + "} 1"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_epoch_loss{") + kLabels + "} 2"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_elapsed_seconds{") + kLabels + "} 140.25"));
  EXPECT_TRUE(Contains(text, std::string("petname_epoch_duration_seconds{") + kLabels + "} 70.5"));
  EXPECT_TRUE(Contains(text, std::string("petname_validation_loss{") + kLabels + "} 1.85"));
  EXPECT_TRUE(Contains(text, std::string("petname_validation_accuracy{") + kLabels + "} 0.5"));
  EXPECT_TRUE(
      Contains(text, std::string("petname_checkpoint_write_seconds{") + kLabels + "} 0.25"));
  EXPECT_TRUE(Contains(text, std::string("petname_checkpoint_last_success_timestamp_seconds{") +
                                 kLabels + "} 1700000000"));
  EXPECT_TRUE(
      Contains(text, std::string("petname_gpu_memory_allocated_bytes{") + kLabels + "} 1024"));
  EXPECT_TRUE(
      Contains(text, std::string("petname_gpu_memory_reserved_bytes{") + kLabels + "} 2048"));
  EXPECT_TRUE(Contains(text, std::string("petname_learning_rate{") + kLabels + "} 0.001"));

  metrics.OnValidation(1.7, 0.55);
  EXPECT_TRUE(
      Contains(Exposition(metrics), std::string("petname_validation_loss{") + kLabels + "} 1.7"));
}

// A resumed run starts where the checkpoint left it, not at epoch 0.
TEST(TrainingMetricsTest, AResumedRunStartsAtItsCheckpointsEpoch) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.SetResumed(3, 210.5, 1.6, 1.55, 0.58);
  const std::string text = Exposition(metrics);
  EXPECT_TRUE(Contains(text, std::string("petname_epoch{") + kLabels + "} 3"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_elapsed_seconds{") + kLabels + "} 210.5"));
  EXPECT_TRUE(Contains(text, std::string("petname_train_epoch_loss{") + kLabels + "} 1.6"));
  EXPECT_TRUE(Contains(text, std::string("petname_validation_loss{") + kLabels + "} 1.55"));
  EXPECT_TRUE(Contains(text, std::string("petname_validation_accuracy{") + kLabels + "} 0.58"));
}

TEST(TrainingMetricsTest, GoalGaugesTakeTheirValueWhenTheGoalIsReached) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.OnGoalReached(42.5, 1700000000);
  const std::string text = Exposition(metrics);
  EXPECT_TRUE(
      Contains(text, std::string("petname_goal_reached_training_seconds{") + kLabels + "} 42.5"));
  EXPECT_TRUE(Contains(
      text, std::string("petname_goal_reached_timestamp_seconds{") + kLabels + "} 1700000000"));
}

TEST(TrainingMetricsTest, CheckpointFailuresAreCountedByReason) {
  TrainingMetrics metrics({"pets", "ml", 1, ""});
  metrics.OnCheckpointFailure("no_space");
  metrics.OnCheckpointFailure("no_space");
  metrics.OnCheckpointFailure("read_only");
  const std::string text = Exposition(metrics);
  EXPECT_TRUE(Contains(text, "# TYPE petname_checkpoint_failures_total counter"));
  EXPECT_TRUE(Contains(text, "petname_checkpoint_failures_total{" + std::string(kLabels) +
                                 ",reason=\"no_space\"} 2"));
  EXPECT_TRUE(Contains(text, "petname_checkpoint_failures_total{" + std::string(kLabels) +
                                 ",reason=\"read_only\"} 1"));
  EXPECT_TRUE(Contains(text, "petname_checkpoint_failures_total{" + std::string(kLabels) +
                                 ",reason=\"io_error\"} 0"));
}

TEST(TrainingMetricsTest, NonFiniteLossIsExported) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  metrics.OnStep(std::numeric_limits<double>::quiet_NaN(), 1, 0.1, 0);
  EXPECT_TRUE(Contains(Exposition(metrics),
                       "petname_train_loss{job=\"pets\",namespace=\"ml\",rank=\"0\"} Nan"));
}

}  // namespace
}  // namespace petname::metrics
