#include "trainer/train/train.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "common/sha256.h"
#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/owner.h"
#include "trainer/checkpoint/store.h"
#include "trainer/checkpoint/write_failure.h"
#include "trainer/data/sampler.h"
#include "trainer/data/vocabulary.h"
#include "trainer/distributed/sampler.h"
#include "trainer/distributed/stop_signal.h"
#include "trainer/export/export.h"
#include "trainer/train/device_step.h"
#include "trainer/train/host_step.h"
#include "trainer/train/run_fingerprint.h"
#include "trainer/train/run_recorder.h"
#include "trainer/train/run_stream.h"
#include "trainer/train/tuned_threads.h"

namespace petname::train {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// [count, window] int64 tensor from one-byte vocabulary indices.
torch::Tensor ToTensor(const std::vector<uint8_t>& flat, size_t count, int window) {
  return torch::from_blob(const_cast<uint8_t*>(flat.data()), {static_cast<int64_t>(count), window},
                          torch::kUInt8)
      .to(torch::kInt64);
}

// Rank `rank`'s examples of the epoch, from global position `start` on (distributed/sampler.h).
torch::Tensor ShardTensor(const TrainOptions& o, int64_t epoch, int64_t count, int64_t start,
                          int rank) {
  std::vector<int64_t> shard = dist::ShardIndices(data::EpochPermutation(o.seed, epoch, count),
                                                  start, o.rank.world_size, rank, o.drop_last);
  return torch::from_blob(shard.data(), {static_cast<int64_t>(shard.size())}, torch::kInt64)
      .clone();
}

// Rows [begin, end) of `count` that rank `rank` of `world` validates on.
std::pair<int64_t, int64_t> ValidationShard(int64_t count, const dist::RankConfig& r) {
  return {count * r.rank / r.world_size, count * (r.rank + 1) / r.world_size};
}

// Validation as sums over every position, [loss_sum, correct, positions] in float64, so that
// shards can be added together before dividing.
torch::Tensor ValidationSums(model::CharLstm& model, const torch::Tensor& x, const torch::Tensor& y,
                             int64_t batch_size) {
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor loss_sum =
      torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(x.device()));
  torch::Tensor correct = torch::zeros({}, torch::TensorOptions(torch::kInt64).device(x.device()));
  for (int64_t begin = 0; begin < x.size(0); begin += batch_size) {
    torch::Tensor xb = x.slice(0, begin, begin + batch_size);
    torch::Tensor yb = y.slice(0, begin, begin + batch_size).reshape({-1});
    torch::Tensor logits = model->forward(xb).reshape({-1, data::kVocabularySize});
    loss_sum += torch::nn::functional::cross_entropy(
        logits, yb, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    correct += logits.argmax(-1).eq(yb).sum();
  }
  model->train();
  return torch::stack({loss_sum.cpu(), correct.cpu().to(torch::kFloat64),
                       torch::tensor(static_cast<double>(y.numel()), torch::kFloat64)});
}

std::string ParameterChecksum(model::CharLstm& model) {
  Sha256 h;
  for (const torch::Tensor& p : model->parameters()) {
    torch::Tensor t = p.detach().to(torch::kCPU).contiguous();
    h.Update(std::string_view(static_cast<const char*>(t.data_ptr()), t.nbytes()));
  }
  return h.HexDigest();
}

checkpoint::Manifest ManifestFor(const data::Dataset& data, const TrainOptions& o,
                                 const model::ModelOptions& m) {
  checkpoint::Manifest manifest;
  manifest.hyper = {m.vocab_size,
                    m.hidden_size,
                    m.num_layers,
                    data.options.window,
                    o.batch_size,
                    o.learning_rate,
                    o.seed,
                    model::PrecisionName(o.precision),
                    data.options.validation_fraction};
  manifest.vocabulary = std::string(data::kVocabulary);
  manifest.data_fingerprint = data.fingerprint;
  manifest.world_size = o.rank.world_size;
  manifest.owner = o.owner;
  manifest.settings = CheckpointSettings(data, o);
  manifest.settings_sha256 = FingerprintDigest(manifest.settings);
  return manifest;
}

// Restores model, optimizer and progress from the newest valid checkpoint, if there is one.
Status Resume(const TrainOptions& o, const checkpoint::Manifest& want, model::CharLstm& model,
              torch::optim::Adam& optimizer, Reporter* reporter, checkpoint::Manifest* have) {
  std::vector<std::string> skipped;
  std::string dir;
  Status st = checkpoint::FindNewestValid(o.checkpoint_dir, &skipped, &dir, have, o.checkpoint_key);
  for (const std::string& s : skipped) reporter->Warning("skipping damaged checkpoint: " + s);
  if (st.code() == Status::Code::kNotFound) {
    reporter->Note("no checkpoint in " + o.checkpoint_dir + "; starting from scratch");
    return Status::Ok();
  }
  checkpoint::Owner claimed;
  if (st.code() == Status::Code::kCorruption && !o.checkpoint_key.empty() &&
      checkpoint::ClaimedOwner(o.checkpoint_dir, &claimed)) {
    PETNAME_RETURN_IF_ERROR(checkpoint::CheckClaimedOwner(claimed, want.owner, o.checkpoint_dir));
  }
  PETNAME_RETURN_IF_ERROR(st);
  PETNAME_RETURN_IF_ERROR(checkpoint::CheckResumable(*have, want, o.force_resume));
  PETNAME_RETURN_IF_ERROR(
      checkpoint::CheckOwner(*have, want, {o.adopt_checkpoints, o.force_resume}, o.checkpoint_dir));
  PETNAME_RETURN_IF_ERROR(checkpoint::LoadTrainingState(dir, *have, model, optimizer));
  reporter->Note("resuming from " + dir + " (epoch " + std::to_string(have->epoch) + ", step " +
                 std::to_string(have->step) + ")");
  const int64_t was = have->hyper.batch_size * have->world_size;
  const int64_t now = want.hyper.batch_size * want.world_size;
  if (was != now) {
    reporter->Note("global batch changes from " + std::to_string(was) + " (" +
                   std::to_string(have->world_size) + " ranks x " +
                   std::to_string(have->hyper.batch_size) + ") to " + std::to_string(now) + " (" +
                   std::to_string(want.world_size) + " ranks x " +
                   std::to_string(want.hyper.batch_size) + ")");
  }
  return Status::Ok();
}

// Writes a checkpoint of `manifest` (lead rank). A failed write does not stop training: the
// previous checkpoint stays the newest, the failure is counted and, unless `last` (the caller
// then fails the run with the returned Status), reported as one warning line.
Status Checkpoint(const data::Dataset& data, const TrainOptions& o,
                  const checkpoint::Manifest& manifest, model::CharLstm& model,
                  torch::optim::Adam& optimizer, TrainStep* step, bool last, RunRecorder* recorder,
                  Reporter* reporter) {
  const Clock::time_point start = Clock::now();
  step->SyncOptimizer();
  Status st = checkpoint::SaveCheckpoint(o.checkpoint_dir, manifest, o.keep, model, optimizer,
                                         data.training_names, o.checkpoint_key);
  if (st.ok()) {
    recorder->Checkpoint(SecondsSince(start));
    return st;
  }
  recorder->CheckpointFailed(checkpoint::WriteFailureReason(st));
  const std::string what = checkpoint::DescribeWriteFailure(manifest.epoch, o.checkpoint_dir, st);
  if (last) return Status::IoError("training finished, but " + what, st.os_error());
  reporter->Warning(what);
  return st;
}

// The training device, or why it cannot be used.
Status ChooseDevice(const TrainOptions& o, torch::Device* out) {
  if (o.device != "cuda") {
    *out = torch::Device(torch::kCPU);
    return Status::Ok();
  }
  if (!torch::cuda::is_available()) {
#ifdef PETNAME_WITH_CUDA
    return Status::FailedPrecondition("--device cuda: no CUDA GPU is visible to this process");
#else
    return Status::FailedPrecondition("--device cuda: this build has no CUDA (CPU-only LibTorch)");
#endif
  }
  int index = 0;
  PETNAME_RETURN_IF_ERROR(
      dist::CudaDeviceIndex(o.rank, static_cast<int>(torch::cuda::device_count()), &index));
  *out = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  at::globalContext().setAllowTF32CuBLAS(o.tf32);
  at::globalContext().setAllowTF32CuDNN(o.tf32);
  if (o.deterministic) {
    // cuBLAS is deterministic with a fixed workspace (read when its first handle is made, so
    // before any GEMM), which PyTorch's reproducibility notes also ask of cuDNN's LSTM.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
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
  const bool lead = o.rank.rank == 0;
  const int64_t world = o.rank.world_size;
  std::unique_ptr<dist::Communicator> comm;
  dist::CommOptions comm_options = o.comm;
  comm_options.settings = RankSettings(data, o);
  PETNAME_RETURN_IF_ERROR(dist::Communicator::Connect(o.rank, comm_options, &comm));

  torch::manual_seed(o.seed);
  model::ModelOptions model_options;
  model_options.vocab_size = data::kVocabularySize;
  model_options.precision = o.precision;
  model_options.impl = o.impl;
  model_options.fixed_order = o.deterministic;
  model::CharLstm model(model_options);
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(o.learning_rate));

  checkpoint::Manifest manifest = ManifestFor(data, o, model_options);
  if (o.resume) {
    checkpoint::Manifest have;
    PETNAME_RETURN_IF_ERROR(Resume(o, manifest, model, optimizer, reporter, &have));
    manifest.epoch = have.epoch;
    manifest.step = have.step;
    manifest.epoch_examples = have.epoch_examples;
    manifest.metrics = have.metrics;
  }
  PETNAME_RETURN_IF_ERROR(comm->BroadcastFromRank0(model->parameters()));
  PETNAME_RETURN_IF_ERROR(recorder.Start(manifest.epoch, manifest.metrics, /*write_log=*/lead));
  // Until the checkpoint and the metrics log are read, SIGTERM still ends the process at once
  // (no file may keep it from stopping); from here on it is a request agreed at a step boundary.
  dist::InstallStopHandler();

  const int window = data.options.window;
  const torch::Tensor train_x = ToTensor(data.train.inputs, data.train.count, window).to(device);
  const torch::Tensor train_y = ToTensor(data.train.targets, data.train.count, window).to(device);
  const auto [val_begin, val_end] =
      ValidationShard(static_cast<int64_t>(data.validation.count), o.rank);
  const torch::Tensor val_x = ToTensor(data.validation.inputs, data.validation.count, window)
                                  .slice(0, val_begin, val_end)
                                  .to(device);
  const torch::Tensor val_y = ToTensor(data.validation.targets, data.validation.count, window)
                                  .slice(0, val_begin, val_end)
                                  .to(device);
  const int64_t n = train_x.size(0);
  StepContext context;
  context.model = model;
  context.optimizer = &optimizer;
  context.comm = comm.get();
  context.train = &data.train;
  context.train_x = train_x;
  context.train_y = train_y;
  context.batch_size = o.batch_size;
  context.rank = o.rank;
  context.collective_timeout = o.comm.collective_timeout;
  context.planning_shard = ShardTensor(o, 1, n, 0, o.rank.rank);
  std::unique_ptr<TrainStep> step;
  if (o.impl == model::LstmImpl::kHostForest) {
    step = std::make_unique<HostStep>(context, o.grad_sync);
  } else {
    step = std::make_unique<DeviceStep>(context, o.grad_sync);
  }
  LrSchedule schedule;
  schedule.base = o.learning_rate;
  schedule.warmup_steps = o.warmup_steps;
  schedule.decay = o.lr_decay;
  schedule.total_steps =
      o.epochs * ((dist::ShardLength(n, static_cast<int>(world), o.drop_last) + o.batch_size - 1) /
                  o.batch_size);
  TunedThreads threads(o.adapt_threads && device.is_cpu() ? o.threads : 1, &recorder, reporter);
  double train_seconds = 0;
  int64_t trained_samples = 0;
  Status last_save;  // of the last epoch's checkpoint

  const bool reached_before = recorder.goal_epoch() > 0;
  if (reached_before) {
    reporter->Note("goal " + DescribeGoal(o.goal) + " was reached at epoch " +
                   std::to_string(recorder.goal_epoch()) + " by an earlier run");
  }
  result->stopped_at_goal = reached_before && o.goal.stop;  // nothing left to train
  const int64_t first_epoch = result->stopped_at_goal ? o.epochs + 1 : manifest.epoch + 1;
  for (int64_t epoch = first_epoch; epoch <= o.epochs; ++epoch) {
    const int64_t start_at = manifest.epoch_examples;  // non-zero only in a resumed epoch
    std::vector<torch::Tensor> shards;  // every rank's, to assemble each step's global batch
    for (int q = 0; q < world; ++q) shards.push_back(ShardTensor(o, epoch, n, start_at, q));
    const int64_t shard = shards[0].size(0);  // shards are of equal length
    const int64_t batches = (shard + o.batch_size - 1) / o.batch_size;
    int64_t rank_examples = 0;
    torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(device));
    const Clock::time_point epoch_start = Clock::now();
    step->BeginEpoch(shards);
    threads.BeginEpoch();
    for (int64_t b = 0; b < batches; ++b) {
      const Clock::time_point step_start = Clock::now();
      const double lr = LearningRateAt(schedule, manifest.step);
      recorder.LearningRate(lr);
      StepResult r;
      PETNAME_RETURN_IF_ERROR(step->Run(b, lr, dist::StopRequested(), &r));
      recorder.Step(r.loss, r.rows, step_start, r.wait_seconds);
      threads.AfterStep(SecondsSince(step_start) - r.wait_seconds, r.rows);

      result->comm_wait_seconds += r.wait_seconds;
      loss_sum += r.loss * r.rows;
      rank_examples += r.rows;
      ++manifest.step;
      manifest.epoch_examples = start_at + std::min(shard, (b + 1) * o.batch_size) * world;
      reporter->Progress(epoch, b + 1, batches, (b + 1) * o.batch_size * world,
                         SecondsSince(epoch_start));
      if (r.stop) {
        reporter->Note("stopping on SIGTERM after step " + std::to_string(manifest.step));
        if (lead && !o.checkpoint_dir.empty()) {
          Checkpoint(data, o, manifest, model, optimizer, step.get(), /*last=*/false, &recorder,
                     reporter);  // on failure the previous checkpoint is where a restart resumes
        }
        result->preempted = true;
        result->steps = manifest.step;
        return Status::Ok();
      }
    }
    manifest.epoch_examples = 0;
    // The epoch's one host sync: the device has finished its steps when the sum arrives.
    const double rank_loss_sum = loss_sum.item<double>();
    const double epoch_seconds = SecondsSince(epoch_start);
    train_seconds += epoch_seconds;
    trained_samples += shard * world;

    // [val loss sum, correct, positions, train loss sum, train examples], summed over ranks.
    torch::Tensor sums = torch::cat(
        {ValidationSums(model, val_x, val_y, o.batch_size),
         torch::tensor({rank_loss_sum, static_cast<double>(rank_examples)}, torch::kFloat64)});
    sums = sums.to(device);
    PETNAME_RETURN_IF_ERROR(comm->AllreduceSum(sums));
    sums = sums.cpu();
    const double positions = sums[2].item<double>();
    manifest.metrics.val_loss = positions > 0 ? sums[0].item<double>() / positions : NAN;
    manifest.metrics.val_accuracy = positions > 0 ? sums[1].item<double>() / positions : NAN;
    manifest.metrics.train_loss = sums[3].item<double>() / std::max(1.0, sums[4].item<double>());
    manifest.epoch = epoch;
    const bool stop_at_goal =
        o.goal.stop && GoalMet(o.goal, manifest.metrics.val_loss, manifest.metrics.val_accuracy);

    if (lead && !o.checkpoint_dir.empty() &&
        (epoch % o.checkpoint_every == 0 || epoch == o.epochs || stop_at_goal)) {
      const bool last = epoch == o.epochs || stop_at_goal;
      Status saved =
          Checkpoint(data, o, manifest, model, optimizer, step.get(), last, &recorder, reporter);
      if (last) last_save = saved;  // fails the run once the epoch is reported
    }
    Status logged = recorder.Epoch(epoch, manifest.metrics.train_loss, manifest.metrics.val_loss,
                                   manifest.metrics.val_accuracy, shard * world, epoch_seconds);
    if (!logged.ok()) {
      reporter->Warning("epoch " + std::to_string(epoch) + " not logged: " + logged.message());
    }
    reporter->Epoch({epoch, o.epochs, manifest.metrics.train_loss, manifest.metrics.val_loss,
                     manifest.metrics.val_accuracy, shard * world / epoch_seconds,
                     SecondsSince(start)});
    result->train_loss_trace.push_back(manifest.metrics.train_loss);
    result->val_loss_trace.push_back(manifest.metrics.val_loss);
    if (recorder.goal_epoch() == epoch) {
      reporter->Note("goal " + DescribeGoal(o.goal) + " reached at epoch " + std::to_string(epoch) +
                     " after " + std::to_string(recorder.goal_seconds()) + " s of training");
    }
    if (stop_at_goal) {
      reporter->Note("stopping at the goal after epoch " + std::to_string(epoch) +
                     " (--stop-at-goal)");
      result->stopped_at_goal = true;
      break;
    }
  }

  PETNAME_RETURN_IF_ERROR(last_save);
  if (lead && !o.checkpoint_dir.empty()) {  // the final model, for PyTorch (export/export.h)
    const std::string path = o.checkpoint_dir + "/" + exporter::kModelFileName;
    Status st = exporter::WriteRecipeModel(model, manifest, path);
    if (!st.ok()) return Status::IoError("training finished, but " + st.message(), st.os_error());
    reporter->Note("model exported to " + path + " (safetensors for the PyTorch recipe's model)");
  }
  const std::string summary = step->Summary();
  if (!summary.empty()) reporter->Note(summary);
  result->epochs = manifest.epoch;
  result->steps = manifest.step;
  result->train_loss = manifest.metrics.train_loss;
  result->val_loss = manifest.metrics.val_loss;
  result->val_accuracy = manifest.metrics.val_accuracy;
  result->samples_per_second = train_seconds > 0 ? trained_samples / train_seconds : 0;
  result->wall_seconds = SecondsSince(start);
  result->parameters_sha256 = ParameterChecksum(model);
  result->goal_reached_epoch = recorder.goal_epoch();
  result->time_to_goal_seconds = recorder.goal_seconds();
  return Status::Ok();
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
