// Saving and loading the LibTorch parts of a checkpoint directory (see store.h for the
// layout and the atomic write):
//   model.pt      the CharLstm parameters          optimizer.pt  the Adam state
//   rng.pt        the default CPU generator state  names.txt     distinct training names
// Library errors (c10::Error) are turned into Status here. Files are written 0600 and read back
// through ReadCheckpointFile (store.h): LibTorch deserialises bytes already read from a regular
// file, never a path that could be a FIFO, device or symlink.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/model/model.h"

namespace petname::checkpoint {

// Writes a complete checkpoint for `manifest.epoch` under `root` and keeps the newest `keep`.
Status SaveCheckpoint(const std::string& root, const Manifest& manifest, int keep,
                      model::CharLstm& model, torch::optim::Optimizer& optimizer,
                      const std::vector<std::string>& training_names);

// Loads model.pt of a verified checkpoint directory into `model`. Corruption when it cannot be
// read or a parameter's shape or type differs from `model`'s (e.g. another hidden size).
Status LoadModel(const std::string& dir, model::CharLstm& model);

// Loads model, optimizer and generator state of a verified checkpoint directory.
Status LoadTrainingState(const std::string& dir, model::CharLstm& model,
                         torch::optim::Optimizer& optimizer);

// Reads names.txt of a verified checkpoint directory.
Status ReadTrainingNames(const std::string& dir, std::vector<std::string>* names);

}  // namespace petname::checkpoint
