#include "trainer/checkpoint/adam_state.h"

#include <memory>
#include <vector>

namespace petname::checkpoint {
namespace {

bool Amsgrad(const torch::optim::Adam& adam) {
  return static_cast<const torch::optim::AdamOptions&>(adam.param_groups().at(0).options())
      .amsgrad();
}

// One parameter's state as tensors.
struct Slots {
  torch::Tensor exp_avg, exp_avg_sq, max_exp_avg_sq, step;
};

// The state Adam starts a parameter from.
Slots Fresh(const torch::Tensor& p) {
  const torch::Tensor like = p.detach();
  return {torch::zeros_like(like), torch::zeros_like(like), torch::zeros_like(like),
          torch::zeros({}, torch::kInt64)};
}

void Append(const std::string& name, const Slots& s, bool amsgrad, NamedTensors* out) {
  out->emplace_back(name + ".exp_avg", s.exp_avg);
  out->emplace_back(name + ".exp_avg_sq", s.exp_avg_sq);
  if (amsgrad) out->emplace_back(name + ".max_exp_avg_sq", s.max_exp_avg_sq);
  out->emplace_back(name + ".step", s.step);
}

}  // namespace

NamedTensors AdamStateTensors(model::CharLstm& model, const torch::optim::Adam& adam) {
  const bool amsgrad = Amsgrad(adam);
  NamedTensors out;
  for (const auto& p : model->named_parameters()) {
    const auto found = adam.state().find(AdamStateKey(p.value()));
    if (found == adam.state().end()) {
      Append(p.key(), Fresh(p.value()), amsgrad, &out);
      continue;
    }
    const auto& s = static_cast<const torch::optim::AdamParamState&>(*found->second);
    Append(p.key(),
           {s.exp_avg(), s.exp_avg_sq(), s.max_exp_avg_sq(),
            torch::scalar_tensor(s.step(), torch::kInt64)},
           amsgrad, &out);
  }
  return out;
}

Status LoadAdamState(const std::string& dir, const std::string& name, const std::string& sha256,
                     model::CharLstm& model, torch::optim::Adam& adam) {
  const bool amsgrad = Amsgrad(adam);
  const auto params = model->named_parameters();
  std::vector<Slots> slots;
  NamedTensors into;
  for (const auto& p : params) {
    slots.push_back(Fresh(p.value()));
    Append(p.key(), slots.back(), amsgrad, &into);
  }
  PETNAME_RETURN_IF_ERROR(LoadTensors(dir, name, sha256, into));
  for (size_t i = 0; i < slots.size(); ++i) {
    const int64_t step = slots[i].step.item<int64_t>();
    if (step < 0) {
      return Status::Corruption(dir + "/" + name + ": tensor " + params[i].key() + ".step is " +
                                std::to_string(step));
    }
    auto state = std::make_unique<torch::optim::AdamParamState>();
    state->step(step);
    state->exp_avg(slots[i].exp_avg);
    state->exp_avg_sq(slots[i].exp_avg_sq);
    if (amsgrad) state->max_exp_avg_sq(slots[i].max_exp_avg_sq);
    adam.state()[AdamStateKey(params[i].value())] = std::move(state);
  }
  return Status::Ok();
}

}  // namespace petname::checkpoint
