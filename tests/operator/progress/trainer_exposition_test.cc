// The operator's progress scraper reads what the trainer really exports: a TrainingMetrics
// registry, serialised as the trainer's /metrics serves it, gives back the numbers the training
// loop reported.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <string>

#include "operator/progress/trainer_progress.h"
#include "trainer/metrics/training_metrics.h"

namespace petname::progress {
namespace {

std::string Exposition(const metrics::TrainingMetrics& m) {
  return prometheus::TextSerializer().Serialize(m.registry()->Collect());
}

TEST(TrainerExpositionTest, SampleFromTheTrainersOwnMetrics) {
  metrics::TrainingMetrics m({"pets", "ml", 0});
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

}  // namespace
}  // namespace petname::progress
