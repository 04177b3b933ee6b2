// One training step of a CharLstm with Adam on a fixed batch, for tests that compare a model
// restored from a checkpoint with the one that was saved.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "trainer/model/model.h"

namespace petname::checkpoint {

// One Adam step on a fixed batch; returns the loss.
inline double AdamStep(model::CharLstm& model, torch::optim::Adam& optimizer) {
  torch::Tensor x = torch::arange(16, torch::kInt64).remainder(31).reshape({2, 8});
  optimizer.zero_grad();
  torch::Tensor loss = model->forward(x).pow(2).mean();
  loss.backward();
  optimizer.step();
  return loss.item<double>();
}

// The next step of `a` and of `b` gives the same loss and the same parameters, bit for bit.
inline void ExpectTheSameNextStep(model::CharLstm& a, torch::optim::Adam& opt_a, model::CharLstm& b,
                                  torch::optim::Adam& opt_b) {
  EXPECT_EQ(AdamStep(a, opt_a), AdamStep(b, opt_b));
  for (size_t i = 0; i < a->parameters().size(); ++i) {
    EXPECT_TRUE(torch::equal(a->parameters()[i], b->parameters()[i])) << i;
  }
}

}  // namespace petname::checkpoint
