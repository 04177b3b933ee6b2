#include "trainer/metrics/training_metrics.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "common/metrics/names.h"

namespace petname::metrics {
namespace {

// Step times range from milliseconds (small batches on a GPU) to tens of seconds (large
// batches on a CPU); powers of two keep p50/p95 interpolation within a factor of two.
const prometheus::Histogram::BucketBoundaries kStepBuckets = {
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064,  0.128,
    0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384, 32.768};

// All-reduce waits are usually far shorter than a step.
const prometheus::Histogram::BucketBoundaries kAllreduceBuckets = {
    0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032, 0.0064, 0.0128, 0.0256,
    0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1.6384, 3.2768, 6.5536};

prometheus::Labels ToPrometheus(const RankLabels& labels) {
  prometheus::Labels out = {{"job", labels.job},
                            {"namespace", labels.kube_namespace},
                            {"rank", std::to_string(labels.rank)}};
  if (!labels.sweep.empty()) out["sweep"] = labels.sweep;
  return out;
}

bool IsProgressMetric(const std::string& name) {
  return std::find(std::begin(kProgressMetrics), std::end(kProgressMetrics), name) !=
         std::end(kProgressMetrics);
}

}  // namespace

std::string TrainingMetrics::ProgressExposition() const {
  std::vector<prometheus::MetricFamily> families;
  for (prometheus::MetricFamily& f : registry_->Collect()) {
    if (!IsProgressMetric(f.name)) continue;
    f.help.clear();
    // A reason that never failed is absent rather than 0 (readers sum the reasons), so that
    // the message stays within Kubernetes' 4096 bytes with every reason served from the start.
    if (f.name == kCheckpointFailuresTotal) {
      f.metric.erase(
          std::remove_if(f.metric.begin(), f.metric.end(),
                         [](const prometheus::ClientMetric& c) { return c.counter.value == 0; }),
          f.metric.end());
    }
    families.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(families);
}

TrainingMetrics::TrainingMetrics(const RankLabels& labels)
    : registry_(std::make_shared<prometheus::Registry>()),
      labels_(ToPrometheus(labels)),
      train_loss_(AddGauge(kTrainLoss, "Training loss of the last step.")),
      samples_(AddCounter(kTrainSamplesTotal, "Training samples processed by this rank.")),
      steps_(AddCounter(kTrainStepsTotal, "Optimizer steps taken by this rank.")),
      step_duration_(AddHistogram(kStepDurationSeconds,
                                  "Wall time of one training step, all-reduce included.",
                                  kStepBuckets)),
      allreduce_wait_(AddHistogram(kAllreduceWaitSeconds,
                                   "Time per step spent waiting for the gradient all-reduce.",
                                   kAllreduceBuckets)),
      learning_rate_(AddGauge(kLearningRate, "Optimizer learning rate.")),
      epoch_(AddGauge(kEpoch, "Epochs completed.")),
      epochs_planned_(AddGauge(kEpochsPlanned, "Epochs the run will train in total.")),
      world_size_(AddGauge(kWorldSize, "Number of ranks in the run.")),
      restarts_(AddGauge(kRestarts, "Times the job resumed from a checkpoint.")),
      threads_(AddGauge(
          kIntraOpThreads,
          "Intra-op CPU threads of this rank now (fewer while its threads wait for a CPU).")),
      checkpoint_interval_(
          AddGauge(kCheckpointIntervalEpochs, "Epochs between checkpoints (0: no checkpoints).")),
      epoch_loss_(AddUnsetGauge(kTrainEpochLoss, "Mean training loss of the last epoch.")),
      epoch_duration_(
          AddUnsetGauge(kEpochDurationSeconds, "Wall time of the last completed epoch.")),
      elapsed_(AddGauge(kTrainElapsedSeconds,
                        "Training wall time of the job at the last completed epoch, across "
                        "resumes.")),
      validation_loss_(AddUnsetGauge(kValidationLoss, "Loss on the held-out names.")),
      validation_accuracy_(AddUnsetGauge(kValidationAccuracy,
                                         "Next-character accuracy on the held-out names (0..1).")),
      checkpoint_write_(
          AddUnsetGauge(kCheckpointWriteSeconds, "Wall time of the last checkpoint write.")),
      checkpoint_timestamp_(AddUnsetGauge(kCheckpointLastSuccessTimestampSeconds,
                                          "Unix time the last checkpoint was completed.")),
      checkpoint_failures_(prometheus::BuildCounter()
                               .Name(kCheckpointFailuresTotal)
                               .Help("Checkpoint writes that failed, by reason.")
                               .Labels(labels_)
                               .Register(*registry_)),
      goal_training_seconds_(AddUnsetGauge(
          kGoalReachedTrainingSeconds,
          "Training seconds (across resumes) at the end of the first epoch that met --goal.")),
      goal_timestamp_(AddUnsetGauge(kGoalReachedTimestampSeconds,
                                    "Unix time of the end of the first epoch that met --goal.")) {
  for (const char* reason : kCheckpointFailureReasons)
    checkpoint_failures_.Add({{"reason", reason}});
}

prometheus::Gauge& TrainingMetrics::AddGauge(const std::string& name, const std::string& help) {
  return prometheus::BuildGauge()
      .Name(name)
      .Help(help)
      .Labels(labels_)
      .Register(*registry_)
      .Add({});
}

prometheus::Gauge& TrainingMetrics::AddUnsetGauge(const std::string& name,
                                                  const std::string& help) {
  prometheus::Gauge& gauge = AddGauge(name, help);
  gauge.Set(std::numeric_limits<double>::quiet_NaN());
  return gauge;
}

prometheus::Counter& TrainingMetrics::AddCounter(const std::string& name, const std::string& help) {
  return prometheus::BuildCounter()
      .Name(name)
      .Help(help)
      .Labels(labels_)
      .Register(*registry_)
      .Add({});
}

prometheus::Histogram& TrainingMetrics::AddHistogram(
    const std::string& name, const std::string& help,
    const prometheus::Histogram::BucketBoundaries& buckets) {
  return prometheus::BuildHistogram()
      .Name(name)
      .Help(help)
      .Labels(labels_)
      .Register(*registry_)
      .Add({}, buckets);
}

void TrainingMetrics::SetInfo(const RunInfo& info) {
  prometheus::BuildGauge()
      .Name(kTrainingInfo)
      .Help("Facts about the run in its labels; the value is always 1.")
      .Labels(labels_)
      .Register(*registry_)
      .Add({{"backend", info.backend},
            {"precision", info.precision},
            {"device", info.device},
            {"version", info.version}})
      .Set(1);
  world_size_.Set(info.world_size);
  epochs_planned_.Set(info.epochs_planned);
  restarts_.Set(info.restarts);
  threads_.Set(info.threads);
  checkpoint_interval_.Set(info.checkpoint_every_epochs);
  if (info.device == "cuda" && gpu_allocated_ == nullptr) {
    gpu_allocated_ = &AddUnsetGauge(kGpuMemoryAllocatedBytes,
                                    "CUDA memory held by tensors on this rank's device.");
    gpu_reserved_ = &AddUnsetGauge(kGpuMemoryReservedBytes,
                                   "CUDA memory reserved by the caching allocator on this device.");
  }
}

void TrainingMetrics::SetResumed(int epochs_completed, double elapsed_seconds, double epoch_loss,
                                 double validation_loss, double validation_accuracy) {
  epoch_.Set(epochs_completed);
  elapsed_.Set(elapsed_seconds);
  epoch_loss_.Set(epoch_loss);
  validation_loss_.Set(validation_loss);
  validation_accuracy_.Set(validation_accuracy);
}

void TrainingMetrics::OnStep(double loss, int64_t samples, double step_seconds,
                             double allreduce_wait_seconds) {
  train_loss_.Set(loss);
  samples_.Increment(static_cast<double>(samples));
  steps_.Increment();
  step_duration_.Observe(step_seconds);
  allreduce_wait_.Observe(allreduce_wait_seconds);
}

void TrainingMetrics::SetLearningRate(double learning_rate) { learning_rate_.Set(learning_rate); }

void TrainingMetrics::SetThreads(int threads) { threads_.Set(threads); }

void TrainingMetrics::OnEpoch(int epochs_completed, double epoch_loss, double epoch_seconds,
                              double elapsed_seconds) {
  epoch_.Set(epochs_completed);
  epoch_loss_.Set(epoch_loss);
  epoch_duration_.Set(epoch_seconds);
  elapsed_.Set(elapsed_seconds);
}

void TrainingMetrics::OnGoalReached(double training_seconds, double timestamp_seconds) {
  goal_training_seconds_.Set(training_seconds);
  goal_timestamp_.Set(timestamp_seconds);
}

void TrainingMetrics::OnValidation(double loss, double accuracy) {
  validation_loss_.Set(loss);
  validation_accuracy_.Set(accuracy);
}

void TrainingMetrics::OnCheckpoint(double write_seconds, double timestamp_seconds) {
  checkpoint_write_.Set(write_seconds);
  checkpoint_timestamp_.Set(timestamp_seconds);
}

void TrainingMetrics::OnCheckpointFailure(const std::string& reason) {
  checkpoint_failures_.Add({{"reason", reason}}).Increment();
}

void TrainingMetrics::SetGpuMemory(double allocated_bytes, double reserved_bytes) {
  if (gpu_allocated_ == nullptr) return;
  gpu_allocated_->Set(allocated_bytes);
  gpu_reserved_->Set(reserved_bytes);
}

}  // namespace petname::metrics
