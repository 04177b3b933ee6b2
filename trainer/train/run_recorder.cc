#include "trainer/train/run_recorder.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#ifdef PETNAME_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "common/time_util.h"
#include "trainer/metrics/katib_metrics_file.h"
#include "trainer/metrics/metrics_log.h"
#include "trainer/model/model.h"
#include "trainer/train/goal.h"
#include "trainer/train/train.h"

namespace petname::train {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Publishes the CUDA caching allocator's current totals for this rank's device. Index 0 of
// the stat arrays is the aggregate over pool types in every LibTorch version.
void RecordGpuMemory(metrics::TrainingMetrics* metrics) {
#ifdef PETNAME_WITH_CUDA
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(c10::cuda::current_device());
  metrics->SetGpuMemory(static_cast<double>(stats.allocated_bytes[0].current),
                        static_cast<double>(stats.reserved_bytes[0].current));
#else
  (void)metrics;
#endif
}

std::string LogPath(const TrainOptions& o) {
  return (std::filesystem::path(o.checkpoint_dir) / metrics::kMetricsLogName).string();
}

}  // namespace

metrics::RunInfo RunInfoOf(const TrainOptions& o, int restarts) {
  return {o.comm.backend == dist::Backend::kNccl ? "nccl" : "gloo",
          model::PrecisionName(o.precision),
          o.device,
          PETNAME_VERSION,
          o.rank.world_size,
          static_cast<int>(o.epochs),
          restarts,
          o.checkpoint_dir.empty() ? 0 : static_cast<int>(o.checkpoint_every),
          o.threads};
}

RunRecorder::RunRecorder(const TrainOptions& options, metrics::TrainingMetrics* metrics)
    : options_(options), metrics_(metrics), start_(Clock::now()) {}

Status RunRecorder::Start(int64_t resumed_epoch, const checkpoint::Metrics& resumed,
                          bool write_log) {
  write_log_ = write_log && !options_.checkpoint_dir.empty();
  write_katib_ = write_log && !options_.katib_metrics_file.empty();
  if (write_katib_) {
    PETNAME_RETURN_IF_ERROR(metrics::CreateKatibMetricsFile(options_.katib_metrics_file));
  }
  if (resumed_epoch > 0 && !options_.checkpoint_dir.empty()) {
    metrics::CarriedOver carried;
    PETNAME_RETURN_IF_ERROR(
        metrics::CarryOverOnResume(LogPath(options_), static_cast<int>(resumed_epoch), &carried));
    carried_seconds_ = carried.elapsed_seconds;
    restarts_ = carried.restarts;
    PETNAME_RETURN_IF_ERROR(RecallGoal(static_cast<int>(resumed_epoch)));
  }
  if (metrics_ != nullptr) {
    metrics_->SetInfo(RunInfoOf(options_, restarts_));
    if (resumed_epoch > 0) {
      metrics_->SetResumed(static_cast<int>(resumed_epoch), carried_seconds_, resumed.train_loss,
                           resumed.val_loss, resumed.val_accuracy);
    }
    if (options_.device == "cuda") RecordGpuMemory(metrics_);
  }
  return Status::Ok();
}

Status RunRecorder::RecallGoal(int resumed_epoch) {
  if (!options_.goal.set) return Status::Ok();
  std::vector<metrics::EpochRecord> records;
  Status read = metrics::ReadMetricsLog(LogPath(options_), &records);
  if (read.code() == Status::Code::kNotFound) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(read);
  const metrics::EpochRecord* reached =
      FirstRecordMeetingGoal(options_.goal, records, resumed_epoch);
  if (reached == nullptr) return Status::Ok();
  goal_epoch_ = reached->epoch;
  goal_seconds_ = reached->elapsed_seconds;
  if (metrics_ != nullptr) metrics_->OnGoalReached(goal_seconds_, reached->timestamp);
  return Status::Ok();
}

void RunRecorder::LearningRate(double lr) {
  if (lr == learning_rate_) return;
  learning_rate_ = lr;
  if (metrics_ != nullptr) metrics_->SetLearningRate(lr);
}

void RunRecorder::Threads(int threads) {
  if (metrics_ != nullptr) metrics_->SetThreads(threads);
}

void RunRecorder::Step(const torch::Tensor& loss, int64_t samples, Clock::time_point step_start,
                       double allreduce_wait_seconds) {
  if (metrics_ == nullptr) return;
  // Reading a device loss waits for the device: at most once a second (the gauge is scraped
  // far less often), so the host keeps queueing steps ahead of the GPU.
  const Clock::time_point now = Clock::now();
  if (loss.is_cpu() || now - last_loss_read_ >= std::chrono::seconds(1)) {
    last_loss_ = loss.item<double>();
    last_loss_read_ = now;
    if (loss.is_cuda()) RecordGpuMemory(metrics_);
  }
  metrics_->OnStep(last_loss_, samples, SecondsSince(step_start), allreduce_wait_seconds);
}

void RunRecorder::Checkpoint(double seconds) {
  if (metrics_ != nullptr) metrics_->OnCheckpoint(seconds, UnixNowSeconds());
}

void RunRecorder::CheckpointFailed(const std::string& reason) {
  if (metrics_ != nullptr) metrics_->OnCheckpointFailure(reason);
}

Status RunRecorder::Epoch(int64_t epoch, double train_loss, double val_loss, double val_accuracy,
                          int64_t samples, double epoch_seconds) {
  const double elapsed = carried_seconds_ + SecondsSince(start_);
  const double now = UnixNowSeconds();
  if (goal_epoch_ == 0 && GoalMet(options_.goal, val_loss, val_accuracy)) {
    goal_epoch_ = epoch;
    goal_seconds_ = elapsed;
    if (metrics_ != nullptr) metrics_->OnGoalReached(elapsed, now);
  }
  if (metrics_ != nullptr) {
    if (std::isfinite(val_loss)) metrics_->OnValidation(val_loss, val_accuracy);
    metrics_->OnEpoch(static_cast<int>(epoch), train_loss, epoch_seconds, elapsed);
  }
  if (!write_log_ && !write_katib_) return Status::Ok();
  metrics::EpochRecord record;
  record.epoch = static_cast<int>(epoch);
  record.train_loss = train_loss;
  record.validation_loss = val_loss;
  record.validation_accuracy = val_accuracy;
  record.elapsed_seconds = elapsed;
  record.timestamp = now;
  record.samples = samples;
  record.samples_per_second = epoch_seconds > 0 ? samples / epoch_seconds : 0;
  record.learning_rate = learning_rate_;
  record.world_size = options_.rank.world_size;
  record.restarts = restarts_;
  if (write_log_) PETNAME_RETURN_IF_ERROR(metrics::AppendEpochRecord(LogPath(options_), record));
  if (!write_katib_) return Status::Ok();
  return metrics::AppendKatibMetrics(options_.katib_metrics_file, record);
}

}  // namespace petname::train
