// The plain port of the original recipe's model: torch::nn::LSTM on one_hot(tokens) +
// torch::nn::Linear, fp32. It is the reference CharLstm must equal (tests) and the
// baseline it is measured against (bench/step_bench). Parameter names and shapes are
// those listed in model.h, so parameters copy between the two by name.
#pragma once

#include <torch/torch.h>

#include "trainer/model/model.h"

namespace petname::model {

class PlainCharLstmImpl : public torch::nn::Module {
 public:
  explicit PlainCharLstmImpl(const ModelOptions& options);

  // Same contract as CharLstmImpl::forward (the precision option is ignored: fp32).
  torch::Tensor forward(const torch::Tensor& tokens);

 private:
  ModelOptions options_;
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(PlainCharLstm);

}  // namespace petname::model
