#include "trainer/train/flat_adam.h"

#include <memory>
#include <string>

#include "trainer/checkpoint/adam_state.h"

namespace petname::train {
namespace {

using checkpoint::AdamStateKey;

const torch::optim::AdamOptions& OptionsOf(const torch::optim::Adam& adam) {
  return static_cast<const torch::optim::AdamOptions&>(adam.param_groups().at(0).options());
}

}  // namespace

FlatAdam::FlatAdam(std::vector<torch::Tensor> params, const torch::optim::Adam& adam)
    : params_(std::move(params)) {
  const torch::optim::AdamOptions& o = OptionsOf(adam);
  TORCH_CHECK(o.weight_decay() == 0 && !o.amsgrad(),
              "FlatAdam: weight decay and amsgrad are not supported");
  TORCH_CHECK(!params_.empty(), "FlatAdam: no parameters");
  beta1_ = std::get<0>(o.betas());
  beta2_ = std::get<1>(o.betas());
  eps_ = o.eps();
  torch::NoGradGuard no_grad;
  int64_t total = 0;
  for (const torch::Tensor& p : params_) total += p.numel();
  const torch::TensorOptions options = params_.front().options();
  params_flat_ = torch::empty({total}, options);
  exp_avg_ = torch::zeros({total}, options);
  exp_avg_sq_ = torch::zeros({total}, options);
  const auto f64 = torch::TensorOptions(torch::kFloat64).device(options.device());
  step_ = torch::zeros({}, f64);
  lr_ = torch::full({}, o.lr(), f64);
  int64_t offset = 0;
  for (torch::Tensor& p : params_) {
    const int64_t n = p.numel();
    torch::Tensor slice = params_flat_.narrow(0, offset, n);
    slice.copy_(p.reshape({-1}));
    p.set_data(slice.view(p.sizes()));
    const auto found = adam.state().find(AdamStateKey(p));
    if (found != adam.state().end()) {
      const auto& s = static_cast<const torch::optim::AdamParamState&>(*found->second);
      exp_avg_.narrow(0, offset, n).copy_(s.exp_avg().reshape({-1}));
      exp_avg_sq_.narrow(0, offset, n).copy_(s.exp_avg_sq().reshape({-1}));
      step_.fill_(static_cast<double>(s.step()));
    }
    offset += n;
  }
}

void FlatAdam::BindGradients(const torch::Tensor& flat) {
  int64_t offset = 0;
  for (torch::Tensor& p : params_) {
    p.mutable_grad() = flat.narrow(0, offset, p.numel()).view(p.sizes());
    offset += p.numel();
  }
}

void FlatAdam::SetLearningRate(double lr) { lr_.fill_(lr); }

void FlatAdam::Update(const torch::Tensor& grad) {
  torch::NoGradGuard no_grad;
  step_.add_(1);
  const torch::Tensor correction1 = 1 - torch::pow(beta1_, step_);
  const torch::Tensor correction2 = 1 - torch::pow(beta2_, step_);
  exp_avg_.mul_(beta1_).add_(grad, 1 - beta1_);
  exp_avg_sq_.mul_(beta2_).addcmul_(grad, grad, 1 - beta2_);
  const torch::Tensor denom =
      (exp_avg_sq_.sqrt() / correction2.sqrt().to(torch::kFloat)).add_(eps_);
  params_flat_.sub_(exp_avg_ / denom * (lr_ / correction1).to(torch::kFloat));
}

void FlatAdam::ExportTo(torch::optim::Adam& adam) const {
  torch::NoGradGuard no_grad;
  const auto steps = static_cast<int64_t>(step_.item<double>());
  int64_t offset = 0;
  for (const torch::Tensor& p : params_) {
    const int64_t n = p.numel();
    auto state = std::make_unique<torch::optim::AdamParamState>();
    state->step(steps);
    state->exp_avg(exp_avg_.narrow(0, offset, n).view(p.sizes()).clone());
    state->exp_avg_sq(exp_avg_sq_.narrow(0, offset, n).view(p.sizes()).clone());
    adam.state()[AdamStateKey(p)] = std::move(state);
    offset += n;
  }
}

}  // namespace petname::train
