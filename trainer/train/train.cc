#include "trainer/train/train.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "trainer/data/vocabulary.h"
#include "trainer/distributed/sampler.h"
#include "trainer/distributed/stop_signal.h"
#include "trainer/export/export.h"
#include "trainer/train/device_examples.h"
#include "trainer/train/device_step.h"
#include "trainer/train/evaluation.h"
#include "trainer/train/host_step.h"
#include "trainer/train/run_checkpoint.h"
#include "trainer/train/run_fingerprint.h"
#include "trainer/train/run_recorder.h"
#include "trainer/train/run_stream.h"
#include "trainer/train/training_device.h"
#include "trainer/train/tuned_threads.h"

namespace petname::train {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

model::ModelOptions ModelOptionsFor(const TrainOptions& o) {
  model::ModelOptions model_options;
  model_options.vocab_size = data::kVocabularySize;
  model_options.precision = o.precision;
  model_options.impl = o.impl;
  model_options.fixed_order = o.deterministic;
  return model_options;
}

// This rank's link to the others; rendezvous checks that every rank trains with the same
// settings (run_fingerprint.h RankSettings).
Status Connect(const data::Dataset& data, const TrainOptions& o,
               std::unique_ptr<dist::Communicator>* comm) {
  dist::CommOptions comm_options = o.comm;
  comm_options.settings = RankSettings(data, o);
  return dist::Communicator::Connect(o.rank, comm_options, comm);
}

// The step of the options' LSTM implementation (step.h).
std::unique_ptr<TrainStep> MakeStep(const data::Dataset& data, const TrainOptions& o,
                                    const DeviceExamples& e, const model::CharLstm& model,
                                    torch::optim::Adam* optimizer, dist::Communicator* comm) {
  StepContext context;
  context.model = model;
  context.optimizer = optimizer;
  context.comm = comm;
  context.train = &data.train;
  context.train_x = e.train_x;
  context.train_y = e.train_y;
  context.batch_size = o.batch_size;
  context.rank = o.rank;
  context.collective_timeout = o.comm.collective_timeout;
  context.planning_shard = ShardTensor(o, 1, e.train_x.size(0), 0, o.rank.rank);
  if (o.impl == model::LstmImpl::kHostForest) {
    return std::make_unique<HostStep>(context, o.grad_sync);
  }
  return std::make_unique<DeviceStep>(context, o.grad_sync);
}

// The learning rate of every step of the run: o.epochs epochs over `n` training examples.
LrSchedule ScheduleFor(const TrainOptions& o, int64_t n) {
  LrSchedule schedule;
  schedule.base = o.learning_rate;
  schedule.warmup_steps = o.warmup_steps;
  schedule.decay = o.lr_decay;
  schedule.total_steps =
      o.epochs *
      ((dist::ShardLength(n, o.rank.world_size, o.drop_last) + o.batch_size - 1) / o.batch_size);
  return schedule;
}

// A run once it is set up: its parts (RunTraining owns them) and where it stands.
struct Run {
  const data::Dataset& data;
  const TrainOptions& o;
  Reporter* reporter;
  RunRecorder* recorder;
  Clock::time_point start;
  torch::Device device;
  dist::Communicator* comm;
  model::CharLstm model;
  torch::optim::Adam* optimizer;
  const DeviceExamples& examples;
  TrainStep* step;
  LrSchedule schedule;
  TunedThreads* threads;
  checkpoint::Manifest manifest;  // the progress the next checkpoint records
  double train_seconds = 0;       // training-step time of this run's epochs
  int64_t trained_samples = 0;    // in those epochs, by all ranks
  Status last_save{};             // of the last epoch's checkpoint

  bool lead() const { return o.rank.rank == 0; }
  int64_t world() const { return o.rank.world_size; }
};

// Writes the run's checkpoint as it stands (run_checkpoint.h).
Status Save(Run* run, bool last) {
  return WriteCheckpoint(run->data, run->o, run->manifest, run->model, *run->optimizer, run->step,
                         last, run->recorder, run->reporter);
}

// What an epoch's steps leave for its end.
struct EpochSteps {
  int64_t shard = 0;          // examples of each rank's shard (all of one length)
  int64_t rank_examples = 0;  // trained on by this rank
  torch::Tensor loss_sum;     // this rank's, on the device
  Clock::time_point start;
};

// The ranks agreed to stop on SIGTERM: the lead rank checkpoints where the run stands, and the
// run ends with result->preempted.
void StopOnSigterm(Run* run, TrainResult* result) {
  run->reporter->Note("stopping on SIGTERM after step " + std::to_string(run->manifest.step));
  if (run->lead() && !run->o.checkpoint_dir.empty()) {
    Save(run, /*last=*/false);  // on failure the previous checkpoint is where a restart resumes
  }
  result->preempted = true;
  result->steps = run->manifest.step;
}

// The steps of `epoch` from the manifest's position in it; after a step at which the ranks
// agreed to stop, StopOnSigterm.
Status TrainEpoch(Run* run, int64_t epoch, EpochSteps* out, TrainResult* result) {
  const TrainOptions& o = run->o;
  checkpoint::Manifest& manifest = run->manifest;
  const int64_t world = run->world();
  const int64_t n = run->examples.train_x.size(0);
  const int64_t start_at = manifest.epoch_examples;  // non-zero only in a resumed epoch
  std::vector<torch::Tensor> shards;  // every rank's, to assemble each step's global batch
  for (int q = 0; q < world; ++q) shards.push_back(ShardTensor(o, epoch, n, start_at, q));
  const int64_t shard = shards[0].size(0);  // shards are of equal length
  const int64_t batches = (shard + o.batch_size - 1) / o.batch_size;
  out->shard = shard;
  out->loss_sum = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(run->device));
  out->start = Clock::now();
  run->step->BeginEpoch(shards);
  run->threads->BeginEpoch();
  for (int64_t b = 0; b < batches; ++b) {
    const Clock::time_point step_start = Clock::now();
    const double lr = LearningRateAt(run->schedule, manifest.step);
    run->recorder->LearningRate(lr);
    StepResult r;
    PETNAME_RETURN_IF_ERROR(run->step->Run(b, lr, dist::StopRequested(), &r));
    run->recorder->Step(r.loss, r.rows, step_start, r.wait_seconds);
    run->threads->AfterStep(SecondsSince(step_start) - r.wait_seconds, r.rows);

    result->comm_wait_seconds += r.wait_seconds;
    out->loss_sum += r.loss * r.rows;
    out->rank_examples += r.rows;
    ++manifest.step;
    manifest.epoch_examples = start_at + std::min(shard, (b + 1) * o.batch_size) * world;
    run->reporter->Progress(epoch, b + 1, batches, (b + 1) * o.batch_size * world,
                            SecondsSince(out->start));
    if (r.stop) {
      StopOnSigterm(run, result);
      return Status::Ok();
    }
  }
  manifest.epoch_examples = 0;
  return Status::Ok();
}

// The epoch's metrics from this rank's training loss sum and examples and its validation
// shard, summed over the ranks so that every rank has the same.
Status SumOverRanks(Run* run, double rank_loss_sum, int64_t rank_examples,
                    checkpoint::Metrics* metrics) {
  // [val loss sum, correct, positions, train loss sum, train examples], summed over ranks.
  torch::Tensor sums = torch::cat(
      {ValidationSums(run->model, run->examples.val_x, run->examples.val_y, run->o.batch_size),
       torch::tensor({rank_loss_sum, static_cast<double>(rank_examples)}, torch::kFloat64)});
  sums = sums.to(run->device);
  PETNAME_RETURN_IF_ERROR(run->comm->AllreduceSum(sums));
  sums = sums.cpu();
  const double positions = sums[2].item<double>();
  metrics->val_loss = positions > 0 ? sums[0].item<double>() / positions : NAN;
  metrics->val_accuracy = positions > 0 ? sums[1].item<double>() / positions : NAN;
  metrics->train_loss = sums[3].item<double>() / std::max(1.0, sums[4].item<double>());
  return Status::Ok();
}

// The end of `epoch`: its metrics, its checkpoint (lead rank: every checkpoint_every epochs,
// the last, and at the goal with --stop-at-goal, which sets *stop_at_goal), its metrics log line
// and report.
Status EndEpoch(Run* run, int64_t epoch, const EpochSteps& steps, TrainResult* result,
                bool* stop_at_goal) {
  const TrainOptions& o = run->o;
  checkpoint::Manifest& manifest = run->manifest;
  // The epoch's one host sync: the device has finished its steps when the sum arrives.
  const double rank_loss_sum = steps.loss_sum.item<double>();
  const double epoch_seconds = SecondsSince(steps.start);
  const int64_t samples = steps.shard * run->world();
  run->train_seconds += epoch_seconds;
  run->trained_samples += samples;
  PETNAME_RETURN_IF_ERROR(SumOverRanks(run, rank_loss_sum, steps.rank_examples, &manifest.metrics));
  manifest.epoch = epoch;
  const checkpoint::Metrics& m = manifest.metrics;
  *stop_at_goal = o.goal.stop && GoalMet(o.goal, m.val_loss, m.val_accuracy);

  if (run->lead() && !o.checkpoint_dir.empty() &&
      (epoch % o.checkpoint_every == 0 || epoch == o.epochs || *stop_at_goal)) {
    const bool last = epoch == o.epochs || *stop_at_goal;
    Status saved = Save(run, last);
    if (last) run->last_save = saved;  // fails the run once the epoch is reported
  }
  Status logged =
      run->recorder->Epoch(epoch, m.train_loss, m.val_loss, m.val_accuracy, samples, epoch_seconds);
  if (!logged.ok()) {
    run->reporter->Warning("epoch " + std::to_string(epoch) + " not logged: " + logged.message());
  }
  run->reporter->Epoch({epoch, o.epochs, m.train_loss, m.val_loss, m.val_accuracy,
                        samples / epoch_seconds, SecondsSince(run->start)});
  result->train_loss_trace.push_back(m.train_loss);
  result->val_loss_trace.push_back(m.val_loss);
  if (run->recorder->goal_epoch() == epoch) {
    run->reporter->Note("goal " + DescribeGoal(o.goal) + " reached at epoch " +
                        std::to_string(epoch) + " after " +
                        std::to_string(run->recorder->goal_seconds()) + " s of training");
  }
  return Status::Ok();
}

// The epochs left up to o.epochs; fewer with --stop-at-goal once the goal is met, or when the
// ranks stop on SIGTERM (result->preempted).
Status TrainEpochs(Run* run, TrainResult* result) {
  const TrainOptions& o = run->o;
  const bool reached_before = run->recorder->goal_epoch() > 0;
  if (reached_before) {
    run->reporter->Note("goal " + DescribeGoal(o.goal) + " was reached at epoch " +
                        std::to_string(run->recorder->goal_epoch()) + " by an earlier run");
  }
  result->stopped_at_goal = reached_before && o.goal.stop;  // nothing left to train
  const int64_t first_epoch = result->stopped_at_goal ? o.epochs + 1 : run->manifest.epoch + 1;
  for (int64_t epoch = first_epoch; epoch <= o.epochs; ++epoch) {
    EpochSteps steps;
    PETNAME_RETURN_IF_ERROR(TrainEpoch(run, epoch, &steps, result));
    if (result->preempted) return Status::Ok();
    bool stop_at_goal = false;
    PETNAME_RETURN_IF_ERROR(EndEpoch(run, epoch, steps, result, &stop_at_goal));
    if (stop_at_goal) {
      run->reporter->Note("stopping at the goal after epoch " + std::to_string(epoch) +
                          " (--stop-at-goal)");
      result->stopped_at_goal = true;
      break;
    }
  }
  return Status::Ok();
}

// After the last epoch: the final model exported (lead rank), the step's summary line and the
// run's result.
Status Finish(Run* run, TrainResult* result) {
  const TrainOptions& o = run->o;
  const checkpoint::Manifest& manifest = run->manifest;
  if (run->lead() && !o.checkpoint_dir.empty()) {  // the final model, for PyTorch (export/export.h)
    const std::string path = o.checkpoint_dir + "/" + exporter::kModelFileName;
    Status st = exporter::WriteRecipeModel(run->model, manifest, path);
    if (!st.ok()) return Status::IoError("training finished, but " + st.message(), st.os_error());
    run->reporter->Note("model exported to " + path +
                        " (safetensors for the PyTorch recipe's model)");
  }
  const std::string summary = run->step->Summary();
  if (!summary.empty()) run->reporter->Note(summary);
  result->epochs = manifest.epoch;
  result->steps = manifest.step;
  result->train_loss = manifest.metrics.train_loss;
  result->val_loss = manifest.metrics.val_loss;
  result->val_accuracy = manifest.metrics.val_accuracy;
  result->samples_per_second =
      run->train_seconds > 0 ? run->trained_samples / run->train_seconds : 0;
  result->wall_seconds = SecondsSince(run->start);
  result->parameters_sha256 = ParameterChecksum(run->model);
  result->goal_reached_epoch = run->recorder->goal_epoch();
  result->time_to_goal_seconds = run->recorder->goal_seconds();
  return Status::Ok();
}

Status RunTraining(const data::Dataset& data, const TrainOptions& o, Reporter* reporter,
                   metrics::TrainingMetrics* metrics, TrainResult* result) {
  const Clock::time_point start = Clock::now();
  RunRecorder recorder(o, metrics);
  ConfigureThreads(o.threads);
  torch::Device device(torch::kCPU);
  PETNAME_RETURN_IF_ERROR(ChooseDevice(o, &device));
  if (o.impl == model::LstmImpl::kHostForest && !device.is_cpu()) {
    return Status::InvalidArgument("--lstm-impl host-forest runs on the CPU only");
  }
  const c10::DeviceGuard device_guard(device);
  const RunStream run_stream(device);  // before anything touches the device (run_stream.h)
  std::unique_ptr<dist::Communicator> comm;
  PETNAME_RETURN_IF_ERROR(Connect(data, o, &comm));

  torch::manual_seed(o.seed);
  const model::ModelOptions model_options = ModelOptionsFor(o);
  model::CharLstm model(model_options);
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(o.learning_rate));
  checkpoint::Manifest manifest = ManifestFor(data, o, model_options);
  if (o.resume) PETNAME_RETURN_IF_ERROR(Resume(o, model, optimizer, reporter, &manifest));
  PETNAME_RETURN_IF_ERROR(comm->BroadcastFromRank0(model->parameters()));
  PETNAME_RETURN_IF_ERROR(
      recorder.Start(manifest.epoch, manifest.metrics, /*write_log=*/o.rank.rank == 0));
  // Until the checkpoint and the metrics log are read, SIGTERM still ends the process at once
  // (no file may keep it from stopping); from here on it is a request agreed at a step boundary.
  dist::InstallStopHandler();

  const DeviceExamples examples = ExamplesOn(device, data, o.rank);
  const std::unique_ptr<TrainStep> step =
      MakeStep(data, o, examples, model, &optimizer, comm.get());
  const LrSchedule schedule = ScheduleFor(o, examples.train_x.size(0));
  TunedThreads threads(o.adapt_threads && device.is_cpu() ? o.threads : 1, &recorder, reporter);
  Run run{data,  o,          reporter, &recorder,  start,    device,   comm.get(),
          model, &optimizer, examples, step.get(), schedule, &threads, std::move(manifest)};
  PETNAME_RETURN_IF_ERROR(TrainEpochs(&run, result));
  if (result->preempted) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(run.last_save);
  return Finish(&run, result);
}

}  // namespace

void ConfigureThreads(int threads) {
  static std::once_flag interop_once;
  std::call_once(interop_once, [] { at::set_num_interop_threads(1); });
  torch::set_num_threads(threads);
}

Status Train(const data::Dataset& data, const TrainOptions& options, Reporter* reporter,
             metrics::TrainingMetrics* metrics, TrainResult* result) {
  try {
    return RunTraining(data, options, reporter, metrics, result);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("training failed: ") + e.what_without_backtrace());
  }
}

}  // namespace petname::train
