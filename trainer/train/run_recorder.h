// What the training loop records about itself besides the Reporter's lines: the rank's
// Prometheus metrics (when the CLI enabled them) and, when checkpoints are written, one
// metrics.jsonl line per epoch in the checkpoint directory (read by `petname report`) and,
// with TrainOptions::katib_metrics_file, one line per epoch there in Katib's format.
//
// Per-step work is the metrics update only (a host read of the step's loss and of the CUDA
// allocator's totals, at most once a second when the loss lives on a GPU, then atomics); it is
// skipped entirely when metrics are disabled.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/metrics/training_metrics.h"

namespace petname::train {

struct TrainOptions;

// The run's constant facts (metrics::TrainingMetrics::SetInfo) from its options, with
// `restarts` resumes so far. The CLI publishes them (restarts 0) before its metrics server
// answers, so that the first scrape already serves every series of the run (the GPU memory
// gauges too, at NaN until read); Start publishes them again with the restart count read from
// metrics.jsonl.
metrics::RunInfo RunInfoOf(const TrainOptions& options, int restarts);

class RunRecorder {
 public:
  // `metrics` may be null (metrics disabled); it must outlive the recorder.
  RunRecorder(const TrainOptions& options, metrics::TrainingMetrics* metrics);

  // Call once the starting epoch is known and the model is on its device, before the first
  // step: `resumed_epoch` epochs are already done (0 for a fresh run), `resumed` holds the
  // last of them's results. Carries the job's training time and restart count over from
  // metrics.jsonl and publishes the run's facts, where it resumes and, on CUDA, the device's
  // memory, so that every metric is served before training starts. Only the rank with
  // `write_log` (rank 0) appends to metrics.jsonl and the Katib metrics file (created here if
  // missing).
  Status Start(int64_t resumed_epoch, const checkpoint::Metrics& resumed, bool write_log);

  // One optimizer step of `samples` examples on this rank that started at `step_start`,
  // `allreduce_wait_seconds` of it blocked on gradient all-reduce.
  void Step(const torch::Tensor& loss, int64_t samples,
            std::chrono::steady_clock::time_point step_start, double allreduce_wait_seconds);

  // The optimizer's learning rate changed to `lr` (the schedule's rate for the next step).
  void LearningRate(double lr);

  // The intra-op thread count changed to `threads` (train/thread_tuner.h).
  void Threads(int threads);

  // A checkpoint write that took `seconds` just completed.
  void Checkpoint(double seconds);

  // A checkpoint write failed for `reason` (checkpoint/write_failure.h).
  void CheckpointFailed(const std::string& reason);

  // An epoch ended: its mean training loss, validation results (NaN when there is no
  // validation set), samples (all ranks) and wall time. Appends the metrics.jsonl line and
  // the Katib metrics line. The
  // first epoch that meets the options' goal sets the goal-reached gauges.
  Status Epoch(int64_t epoch, double train_loss, double val_loss, double val_accuracy,
               int64_t samples, double epoch_seconds);

  // The goal (TrainOptions::goal), once reached by this run or, after a resume, by an earlier
  // run of the job (read from metrics.jsonl by Start): its epoch and the job's training seconds
  // at its end. goal_epoch() is 0 while not reached.
  int64_t goal_epoch() const { return goal_epoch_; }
  double goal_seconds() const { return goal_seconds_; }

 private:
  // Start's part for a resumed run: the goal an earlier run reached, from metrics.jsonl.
  Status RecallGoal(int resumed_epoch);

  const TrainOptions& options_;
  metrics::TrainingMetrics* metrics_;
  std::chrono::steady_clock::time_point start_;
  double carried_seconds_ = 0;  // training time of earlier runs of the job
  int restarts_ = 0;
  double learning_rate_ = 0;  // the rate of the latest step
  double last_loss_ = 0;      // the latest step loss read from the device
  std::chrono::steady_clock::time_point last_loss_read_{};
  bool write_log_ = false;
  bool write_katib_ = false;
  int64_t goal_epoch_ = 0;
  double goal_seconds_ = 0;
};

}  // namespace petname::train
