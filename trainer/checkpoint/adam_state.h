// Adam's state as the named tensors of a checkpoint's optimizer.safetensors (tensor_file.h).
// For each parameter NAME of the model, in the model's order:
//   NAME.exp_avg, NAME.exp_avg_sq    the moments, shaped and typed like the parameter
//   NAME.max_exp_avg_sq              the same, only for an optimizer with amsgrad
//   NAME.step                        the parameter's step count, an int64 scalar
// A parameter the optimizer holds no state for yet is written as the state Adam starts it from
// (zeros, step 0), so every file holds every parameter's. The options (learning rate, betas,
// eps, weight decay) are not stored: they are the run's own, and the training loop sets the
// learning rate of every step from its schedule (train/lr_schedule.h).
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#include <string>

#include "common/status.h"
#include "trainer/checkpoint/tensor_file.h"
#include "trainer/model/model.h"

namespace petname::checkpoint {

// The key under which torch::optim keeps a parameter's state: its TensorImpl, as a string in
// LibTorch 1.x and as the pointer itself in 2.x.
inline auto AdamStateKey(const torch::Tensor& p) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<void*>(p.unsafeGetTensorImpl());
#else
  return c10::guts::to_string(p.unsafeGetTensorImpl());
#endif
}

// `adam`'s state for `model`'s parameters, named as above.
NamedTensors AdamStateTensors(model::CharLstm& model, const torch::optim::Adam& adam);

// Reads the file `name` of `dir` (sha256 `sha256`, tensor_file.h) and makes it `adam`'s state
// for `model`'s parameters. Corruption as LoadTensors, or for a negative step count.
Status LoadAdamState(const std::string& dir, const std::string& name, const std::string& sha256,
                     model::CharLstm& model, torch::optim::Adam& adam);

}  // namespace petname::checkpoint
