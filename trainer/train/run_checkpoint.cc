#include "trainer/train/run_checkpoint.h"

#include <chrono>
#include <string>
#include <vector>

#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/owner.h"
#include "trainer/checkpoint/store.h"
#include "trainer/checkpoint/write_failure.h"
#include "trainer/data/vocabulary.h"
#include "trainer/train/run_fingerprint.h"

namespace petname::train {
namespace {

using Clock = std::chrono::steady_clock;

// Restores model, optimizer and progress from the newest valid checkpoint, if there is one.
Status RestoreNewest(const TrainOptions& o, const checkpoint::Manifest& want,
                     model::CharLstm& model, torch::optim::Adam& optimizer, Reporter* reporter,
                     checkpoint::Manifest* have) {
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

}  // namespace

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

Status Resume(const TrainOptions& o, model::CharLstm& model, torch::optim::Adam& optimizer,
              Reporter* reporter, checkpoint::Manifest* manifest) {
  checkpoint::Manifest have;
  PETNAME_RETURN_IF_ERROR(RestoreNewest(o, *manifest, model, optimizer, reporter, &have));
  manifest->epoch = have.epoch;
  manifest->step = have.step;
  manifest->epoch_examples = have.epoch_examples;
  manifest->metrics = have.metrics;
  return Status::Ok();
}

Status WriteCheckpoint(const data::Dataset& data, const TrainOptions& o,
                       const checkpoint::Manifest& manifest, model::CharLstm& model,
                       torch::optim::Adam& optimizer, TrainStep* step, bool last,
                       RunRecorder* recorder, Reporter* reporter) {
  const Clock::time_point start = Clock::now();
  step->SyncOptimizer();
  Status st = checkpoint::SaveCheckpoint(o.checkpoint_dir, manifest, o.keep, model, optimizer,
                                         data.training_names, o.checkpoint_key);
  if (st.ok()) {
    recorder->Checkpoint(std::chrono::duration<double>(Clock::now() - start).count());
    return st;
  }
  recorder->CheckpointFailed(checkpoint::WriteFailureReason(st));
  const std::string what = checkpoint::DescribeWriteFailure(manifest.epoch, o.checkpoint_dir, st);
  if (last) return Status::IoError("training finished, but " + what, st.os_error());
  reporter->Warning(what);
  return st;
}

}  // namespace petname::train
