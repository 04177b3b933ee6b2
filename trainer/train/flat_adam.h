// Adam over parameters gathered into one flat buffer, with its step count and learning rate
// held in device tensors: an update is a dozen kernels whatever the number of parameters, runs
// wherever the parameters live, and never reads a host value, so it can be captured once in a
// CUDA graph and replayed with a new learning rate every step.
//
// The update is torch::optim::Adam's (betas, eps from its options; weight decay and amsgrad
// are refused): m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
// p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps). Its state moves to and from that
// optimizer (ExportTo, and the constructor), which is what checkpoints save and load, so a
// checkpoint written by either trains on with the other.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace petname::train {

class FlatAdam {
 public:
  // Moves the values of `params` into one flat buffer and re-points each parameter at its
  // slice (the parameters stay the same tensors to autograd and to `adam`), then takes over
  // `adam`'s state for them, if it has any. `adam` must have one parameter group holding
  // exactly `params`.
  FlatAdam(std::vector<torch::Tensor> params, const torch::optim::Adam& adam);

  int64_t numel() const { return params_flat_.numel(); }

  // Makes each parameter's .grad a view of `flat` ([numel()] or longer) at the parameter's
  // offset, in the buffer's order, so that backward accumulates the flattened gradient there.
  void BindGradients(const torch::Tensor& flat);

  // Takes effect at the next Update (a device-side fill; no sync).
  void SetLearningRate(double lr);

  // One update from `grad` ([numel()], already averaged); device ops only.
  void Update(const torch::Tensor& grad);

  // Writes the state into `adam` (step count, first and second moments per parameter).
  void ExportTo(torch::optim::Adam& adam) const;

 private:
  std::vector<torch::Tensor> params_;
  torch::Tensor params_flat_, exp_avg_, exp_avg_sq_;
  torch::Tensor step_, lr_;  // float64 0-dim, on the device
  double beta1_, beta2_, eps_;
};

}  // namespace petname::train
