// What a run measures of its model besides the training loss: validation as sums over every
// position, and a checksum of its parameters.
#pragma once

#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "trainer/model/model.h"

namespace petname::train {

// Validation as sums over every position, [loss_sum, correct, positions] in float64, so that
// shards can be added together before dividing. `x`, `y`: the validation rows, run in batches
// of `batch_size` with the model in eval mode (back in train mode after).
torch::Tensor ValidationSums(model::CharLstm& model, const torch::Tensor& x, const torch::Tensor& y,
                             int64_t batch_size);

// SHA-256 over the raw bytes of every parameter, in order (TrainResult::parameters_sha256).
std::string ParameterChecksum(model::CharLstm& model);

}  // namespace petname::train
