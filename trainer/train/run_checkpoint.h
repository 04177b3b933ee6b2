// A training run's checkpoints (trainer/checkpoint/checkpoint.h): the manifest it writes, where
// a resumed run takes up, and what a write that fails does to the run.
//  - A resumed run starts from the newest valid checkpoint in the directory, damaged ones
//    skipped with one warning line each; the checkpoint must suit the run and its owner unless
//    the options force or adopt it (checkpoint/manifest.h CheckResumable, checkpoint/owner.h).
//  - Only the lead rank writes. A failed write does not stop training: the previous checkpoint
//    stays the newest, the failure is counted and reported as one warning line
//    (checkpoint/write_failure.h), except after the last epoch, which the run fails with.
#pragma once

#include <torch/torch.h>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/data/dataset.h"
#include "trainer/model/model.h"
#include "trainer/train/reporter.h"
#include "trainer/train/run_recorder.h"
#include "trainer/train/step.h"
#include "trainer/train/train.h"

namespace petname::train {

// The manifest of a fresh run of `o` on `data` with a model of `m`: no epoch, step or metrics
// yet.
checkpoint::Manifest ManifestFor(const data::Dataset& data, const TrainOptions& o,
                                 const model::ModelOptions& m);

// Restores model, optimizer and the progress in *manifest (epoch, step, position in the epoch,
// metrics) from the newest valid checkpoint in o.checkpoint_dir, if there is one; *manifest is
// what the run wants of it. Notes where it resumes, or that it starts from scratch.
Status Resume(const TrainOptions& o, model::CharLstm& model, torch::optim::Adam& optimizer,
              Reporter* reporter, checkpoint::Manifest* manifest);

// Writes a checkpoint of `manifest` (lead rank), the step's optimizer state synced first. On
// failure: with `last`, the Status the run fails with ("training finished, but ..."); otherwise
// the warning line is reported and the write's Status returned.
Status WriteCheckpoint(const data::Dataset& data, const TrainOptions& o,
                       const checkpoint::Manifest& manifest, model::CharLstm& model,
                       torch::optim::Adam& optimizer, TrainStep* step, bool last,
                       RunRecorder* recorder, Reporter* reporter);

}  // namespace petname::train
