// The trainer's Prometheus metrics for one rank: types, help texts and the calls the
// training loop makes to update them, under the names of common/metrics/names.h (which the
// operator reads too). The loop supplies the numbers; this class only records them.
//
// Every series carries the constant labels job, namespace and rank (never per-step
// labels). Step-path calls (OnStep) only touch prometheus-cpp atomics and one uncontended
// histogram lock; everything that allocates happens in the constructor or on per-epoch
// calls. Every family exists from the first scrape on, before training starts (SetInfo adds
// the GPU memory gauges on CUDA): counters at 0 (the checkpoint failures with each reason of
// kCheckpointFailureReasons), gauges at their first value, and a gauge that has no meaningful
// value before its first event (epoch loss and duration, validation, the last checkpoint, the
// goal, GPU memory before it is first read) at NaN, Prometheus' "no value": PromQL comparisons
// with it are false and aggregations skip it, so no alert or dashboard reads a made-up zero.
// All methods must be called from one thread (the training thread); collection by the
// exposer may happen concurrently.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <string>

namespace petname::metrics {

// Identifies the rank in every series: the training job's name, its Kubernetes namespace
// and the rank number; and, for a trial of a PetNameTrainingSweep, the sweep's name (no label
// when empty).
struct RankLabels {
  std::string job;
  std::string kube_namespace;
  int rank = 0;
  std::string sweep;
};

// Constant facts about the run, exported as petname_training_info{...} 1 and gauges.
struct RunInfo {
  std::string backend;    // "gloo", "nccl" or "none"
  std::string precision;  // "fp32", "bf16"
  std::string device;     // "cpu", "cuda"
  std::string version;    // the petname version
  int world_size = 1;
  int epochs_planned = 0;
  int restarts = 0;                 // how many times this job resumed from a checkpoint
  int checkpoint_every_epochs = 0;  // 0: the run writes no checkpoints
  int threads = 1;                  // intra-op CPU threads
};

class TrainingMetrics {
 public:
  explicit TrainingMetrics(const RankLabels& labels);

  TrainingMetrics(const TrainingMetrics&) = delete;
  TrainingMetrics& operator=(const TrainingMetrics&) = delete;

  // The registry holding every series; hand it to a MetricsServer.
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  // The constant labels every series carries (job, namespace, rank), e.g. for a
  // ProcessCollector served beside the registry.
  const prometheus::Labels& labels() const { return labels_; }

  // The progress series (common/metrics/names.h kProgressMetrics) in the Prometheus text
  // format, without help texts and without checkpoint failure reasons still at 0: what rank 0
  // leaves as its termination message, which Kubernetes cuts at 4096 bytes.
  std::string ProgressExposition() const;

  // Records the run's constant facts. Call before training starts; a later call with the same
  // backend, precision, device and version (the info series' labels) updates the gauges.
  void SetInfo(const RunInfo& info);

  // Where a resumed run starts: `epochs_completed` epochs done, `elapsed_seconds` of the job's
  // training time so far, and the last epoch's losses and accuracy (NaN when not known).
  void SetResumed(int epochs_completed, double elapsed_seconds, double epoch_loss,
                  double validation_loss, double validation_accuracy);

  // One optimizer step: its loss, the samples it consumed on this rank, its wall time and
  // the part of that time spent waiting for gradient all-reduce (0 with one rank).
  void OnStep(double loss, int64_t samples, double step_seconds, double allreduce_wait_seconds);

  void SetLearningRate(double learning_rate);

  // The intra-op threads changed while training (train/thread_tuner.h).
  void SetThreads(int threads);

  // An epoch finished: `epochs_completed` epochs are done (1 after the first), with this
  // mean training loss and wall time; `elapsed_seconds` is the job's training wall time so
  // far, across resumes (the x axis of time-to-accuracy).
  void OnEpoch(int epochs_completed, double epoch_loss, double epoch_seconds,
               double elapsed_seconds);

  // A validation pass finished.
  void OnValidation(double loss, double accuracy);

  // The run's goal was reached (first time, or recalled on resume) after `training_seconds`
  // of the job's training time (across resumes), at `timestamp_seconds` (Unix time).
  void OnGoalReached(double training_seconds, double timestamp_seconds);

  // A checkpoint was written in `write_seconds` and completed at `timestamp_seconds` (Unix
  // time). Also used at start-up with the resumed checkpoint's timestamp and write_seconds 0.
  void OnCheckpoint(double write_seconds, double timestamp_seconds);

  // A checkpoint write failed; `reason` is its label (checkpoint/write_failure.h).
  void OnCheckpointFailure(const std::string& reason);

  // CUDA caching-allocator memory of this rank's device, in bytes (ignored unless SetInfo said
  // the device is CUDA).
  void SetGpuMemory(double allocated_bytes, double reserved_bytes);

 private:
  prometheus::Gauge& AddGauge(const std::string& name, const std::string& help);
  // A gauge without a value yet (NaN).
  prometheus::Gauge& AddUnsetGauge(const std::string& name, const std::string& help);
  prometheus::Counter& AddCounter(const std::string& name, const std::string& help);
  prometheus::Histogram& AddHistogram(const std::string& name, const std::string& help,
                                      const prometheus::Histogram::BucketBoundaries& buckets);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Labels labels_;

  prometheus::Gauge& train_loss_;
  prometheus::Counter& samples_;
  prometheus::Counter& steps_;
  prometheus::Histogram& step_duration_;
  prometheus::Histogram& allreduce_wait_;
  prometheus::Gauge& learning_rate_;
  prometheus::Gauge& epoch_;
  prometheus::Gauge& epochs_planned_;
  prometheus::Gauge& world_size_;
  prometheus::Gauge& restarts_;
  prometheus::Gauge& threads_;
  prometheus::Gauge& checkpoint_interval_;

  // NaN until their first event.
  prometheus::Gauge& epoch_loss_;
  prometheus::Gauge& epoch_duration_;
  prometheus::Gauge& elapsed_;
  prometheus::Gauge& validation_loss_;
  prometheus::Gauge& validation_accuracy_;
  prometheus::Gauge& checkpoint_write_;
  prometheus::Gauge& checkpoint_timestamp_;
  prometheus::Family<prometheus::Counter>& checkpoint_failures_;
  prometheus::Gauge& goal_training_seconds_;
  prometheus::Gauge& goal_timestamp_;
  // Added by SetInfo on CUDA; NaN until the first SetGpuMemory.
  prometheus::Gauge* gpu_allocated_ = nullptr;
  prometheus::Gauge* gpu_reserved_ = nullptr;
};

}  // namespace petname::metrics
