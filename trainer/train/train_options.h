// What a training run is asked to do (TrainOptions: the flags of `petname train`, with the
// defaults of defaults.h) and what it reports when it ends (TrainResult); train.h runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainer/checkpoint/manifest.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/grad_sync.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/model/model.h"
#include "trainer/train/defaults.h"
#include "trainer/train/goal.h"
#include "trainer/train/lr_schedule.h"

namespace petname::train {

struct TrainOptions {
  int64_t epochs = kDefaultEpochs;              // total; a resumed run continues up to it
  int64_t batch_size = kDefaultBatchSize;       // per rank
  double learning_rate = kDefaultLearningRate;  // the schedule's base rate
  int64_t warmup_steps = kDefaultWarmupSteps;   // linear warm-up (lr_schedule.h)
  LrDecay lr_decay = LrDecay::kConstant;
  uint64_t seed = kDefaultSeed;
  int threads = 1;  // intra-op threads; with adapt_threads, at most this many
  // Fewer threads while other processes keep the CPUs busy (thread_tuner.h); CPU only.
  bool adapt_threads = false;
  std::string device = "cpu";  // "cpu" or "cuda" (cuda:LOCAL_RANK)
  model::Precision precision = model::Precision::kFp32;
  model::LstmImpl impl = model::LstmImpl::kHostForest;  // host-forest runs on the CPU only
  bool tf32 = true;  // CUDA: fp32 GEMMs and cuDNN may use TF32 tensor cores
  // Every gradient sum in a fixed order (model/fixed_order.h; cuBLAS and cuDNN in their
  // deterministic modes on CUDA), so the same seed and settings give the same loss trace on the
  // same device and thread count, and a resumed run equals an unstopped one.
  bool deterministic = kDefaultDeterministic;
  std::string checkpoint_dir;  // empty: no checkpoints
  // Rank 0 appends a line per epoch here in Katib's format (metrics/katib_metrics_file.h).
  std::string katib_metrics_file;
  int64_t checkpoint_every = kDefaultCheckpointEveryEpochs;  // the final epoch is always saved
  int keep = kDefaultKeep;
  bool resume = false;
  bool force_resume = false;
  checkpoint::Owner owner;         // recorded in every checkpoint (checkpoint/owner.h)
  std::string checkpoint_key;      // signs and checks manifests (checkpoint/manifest_mac.h)
  bool adopt_checkpoints = false;  // resume another owner's checkpoints, or other settings
  dist::RankConfig rank;           // world size 1 unless launched as a rank
  dist::CommOptions comm;
  dist::GradSyncOptions grad_sync;
  bool drop_last = false;  // drop the epoch's tail instead of padding shards to equal length
  // --goal: noted when first met; with goal.stop, training ends after that epoch's checkpoint
  // (saved even off the checkpoint interval).
  Goal goal;
};

struct TrainResult {
  int64_t epochs = 0;  // epochs completed, including resumed ones
  int64_t steps = 0;   // optimizer steps completed, including resumed ones
  double train_loss = 0;
  double val_loss = 0;
  double val_accuracy = 0;
  double samples_per_second = 0;  // training examples / training-step time of this run
  double wall_seconds = 0;
  double comm_wait_seconds = 0;          // training-step time blocked on gradient all-reduce
  bool preempted = false;                // stopped on SIGTERM; exit with dist::kExitPreempted
  std::vector<double> train_loss_trace;  // one per epoch trained by this run
  std::vector<double> val_loss_trace;
  std::string parameters_sha256;    // over the raw bytes of every parameter, in order
  int64_t goal_reached_epoch = 0;   // 0: the goal (if any) was not reached
  double time_to_goal_seconds = 0;  // the job's training seconds at that epoch's end
  bool stopped_at_goal = false;     // --stop-at-goal ended the run early
};

}  // namespace petname::train
