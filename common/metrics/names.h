// The names of the trainer's Prometheus metrics: one place for the trainer, which exports them
// (trainer/metrics/training_metrics.cc), and the operator, which reads rank 0's into
// status.progress (operator/progress/trainer_progress.cc). The chart's rules and dashboard
// query the same names (docs/reference/metrics.md); tests/observability runs them against a real
// trainer. Histograms add _bucket, _sum and _count to their name.
#pragma once

namespace petname::metrics {

// Per step.
inline constexpr char kTrainLoss[] = "petname_train_loss";
inline constexpr char kTrainSamplesTotal[] = "petname_train_samples_total";
inline constexpr char kTrainStepsTotal[] = "petname_train_steps_total";
inline constexpr char kStepDurationSeconds[] = "petname_step_duration_seconds";
inline constexpr char kAllreduceWaitSeconds[] = "petname_allreduce_wait_seconds";
inline constexpr char kLearningRate[] = "petname_learning_rate";

// The run's constant facts.
inline constexpr char kTrainingInfo[] = "petname_training_info";
inline constexpr char kEpochsPlanned[] = "petname_epochs_planned";
inline constexpr char kWorldSize[] = "petname_world_size";
inline constexpr char kRestarts[] = "petname_restarts";
inline constexpr char kIntraOpThreads[] = "petname_intra_op_threads";
inline constexpr char kCheckpointIntervalEpochs[] = "petname_checkpoint_interval_epochs";

// Per epoch and validation pass.
inline constexpr char kEpoch[] = "petname_epoch";
inline constexpr char kTrainEpochLoss[] = "petname_train_epoch_loss";
inline constexpr char kEpochDurationSeconds[] = "petname_epoch_duration_seconds";
inline constexpr char kTrainElapsedSeconds[] = "petname_train_elapsed_seconds";
inline constexpr char kValidationLoss[] = "petname_validation_loss";
inline constexpr char kValidationAccuracy[] = "petname_validation_accuracy";

// The run's goal (`petname train --goal METRIC=VALUE`): set at the end of the first epoch whose
// validation metric meets it; absent before. Training seconds as kTrainElapsedSeconds counts
// them (across resumes); the timestamp is Unix time. A sweep's time to goal comes from these.
inline constexpr char kGoalReachedTrainingSeconds[] = "petname_goal_reached_training_seconds";
inline constexpr char kGoalReachedTimestampSeconds[] = "petname_goal_reached_timestamp_seconds";

// Checkpoints and GPU memory.
inline constexpr char kCheckpointWriteSeconds[] = "petname_checkpoint_write_seconds";
inline constexpr char kCheckpointLastSuccessTimestampSeconds[] =
    "petname_checkpoint_last_success_timestamp_seconds";
// Checkpoint writes that failed, by label reason (each served from the start, at 0).
inline constexpr char kCheckpointFailuresTotal[] = "petname_checkpoint_failures_total";
inline constexpr char kFailureNoSpace[] = "no_space";       // ENOSPC, EDQUOT
inline constexpr char kFailureReadOnly[] = "read_only";     // EROFS
inline constexpr char kFailurePermission[] = "permission";  // EACCES, EPERM
inline constexpr char kFailureIoError[] = "io_error";       // anything else
inline constexpr const char* kCheckpointFailureReasons[] = {kFailureNoSpace, kFailureReadOnly,
                                                            kFailurePermission, kFailureIoError};
inline constexpr char kGpuMemoryAllocatedBytes[] = "petname_gpu_memory_allocated_bytes";
inline constexpr char kGpuMemoryReservedBytes[] = "petname_gpu_memory_reserved_bytes";

// The series status.progress is made of. Rank 0 leaves them as its container's termination
// message when training ends (`petname train --termination-log`), so the operator records the
// final epoch even when its last scrape came before it.
inline constexpr const char* kProgressMetrics[] = {kEpochsPlanned,
                                                   kEpoch,
                                                   kTrainLoss,
                                                   kTrainEpochLoss,
                                                   kValidationLoss,
                                                   kValidationAccuracy,
                                                   kTrainSamplesTotal,
                                                   kWorldSize,
                                                   kCheckpointLastSuccessTimestampSeconds,
                                                   kCheckpointFailuresTotal,
                                                   kGoalReachedTrainingSeconds,
                                                   kGoalReachedTimestampSeconds};

}  // namespace petname::metrics
