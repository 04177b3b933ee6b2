#include "trainer/train/flat_adam.h"

#include <gtest/gtest.h>

#include <vector>

#include "trainer/train/graphed_call.h"

namespace petname::train {
namespace {

std::vector<torch::Tensor> Parameters(uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({4, 3}).requires_grad_(), torch::randn({5}).requires_grad_(),
          torch::randn({2, 2, 2}).requires_grad_()};
}

std::vector<torch::Tensor> Clones(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

float MaxDifference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<float>());
  }
  return worst;
}

// `steps` updates with the same random gradients through torch::optim::Adam and FlatAdam.
void StepBoth(torch::optim::Adam& reference, std::vector<torch::Tensor>& ref_params, FlatAdam& flat,
              int steps, double lr) {
  torch::Tensor buffer = torch::empty({flat.numel()});
  for (int s = 0; s < steps; ++s) {
    std::vector<torch::Tensor> grads;
    for (auto& p : ref_params) {
      grads.push_back(torch::randn(p.sizes()));
      p.mutable_grad() = grads.back().clone();
    }
    static_cast<torch::optim::AdamOptions&>(reference.param_groups()[0].options()).lr(lr);
    reference.step();
    std::vector<torch::Tensor> parts;
    for (const torch::Tensor& g : grads) parts.push_back(g.reshape({-1}));
    torch::cat_out(buffer, parts);
    flat.SetLearningRate(lr);
    flat.Update(buffer);
  }
}

TEST(FlatAdamTest, UpdatesLikeTorchAdamAndKeepsTheParameters) {
  std::vector<torch::Tensor> params = Parameters(1);
  std::vector<torch::Tensor> ref_params = Clones(params);
  const std::vector<torch::TensorImpl*> impls = {params[0].unsafeGetTensorImpl(),
                                                 params[1].unsafeGetTensorImpl()};
  torch::optim::Adam reference(ref_params, torch::optim::AdamOptions(1e-2));
  torch::optim::Adam holder(params, torch::optim::AdamOptions(1e-2));
  FlatAdam flat(params, holder);
  EXPECT_EQ(flat.numel(), 12 + 5 + 8);
  EXPECT_EQ(params[0].unsafeGetTensorImpl(), impls[0]);  // the same tensors, re-pointed
  EXPECT_EQ(MaxDifference(params, ref_params), 0);
  StepBoth(reference, ref_params, flat, 5, 1e-2);
  StepBoth(reference, ref_params, flat, 3, 3e-3);  // the rate changes between steps
  EXPECT_LT(MaxDifference(params, ref_params), 1e-6);
}

TEST(FlatAdamTest, BackwardAccumulatesIntoTheBoundBufferInParameterOrder) {
  std::vector<torch::Tensor> params = Parameters(3);
  torch::optim::Adam holder(params, torch::optim::AdamOptions(1e-2));
  FlatAdam flat(params, holder);
  torch::Tensor buffer = torch::zeros({flat.numel() + 1});
  flat.BindGradients(buffer);
  (params[0].sum() + 2 * params[1].sum()).backward();
  const torch::Tensor body = buffer.narrow(0, 0, flat.numel());
  EXPECT_TRUE(body.narrow(0, 0, 12).eq(1).all().item<bool>());
  EXPECT_TRUE(body.narrow(0, 12, 5).eq(2).all().item<bool>());
  EXPECT_TRUE(body.narrow(0, 17, 8).eq(0).all().item<bool>());  // no gradient reached it
  EXPECT_EQ(buffer[-1].item<float>(), 0);
}

TEST(FlatAdamTest, StateRoundTripsThroughTorchAdam) {
  std::vector<torch::Tensor> params = Parameters(2);
  std::vector<torch::Tensor> ref_params = Clones(params);
  torch::optim::Adam reference(ref_params, torch::optim::AdamOptions(1e-2));
  torch::optim::Adam holder(params, torch::optim::AdamOptions(1e-2));
  {
    FlatAdam flat(params, holder);
    StepBoth(reference, ref_params, flat, 4, 1e-2);
    flat.ExportTo(holder);
  }
  ASSERT_EQ(holder.state().size(), params.size());
  for (const auto& entry : holder.state()) {
    EXPECT_EQ(static_cast<const torch::optim::AdamParamState&>(*entry.second).step(), 4);
  }
  // A new FlatAdam takes the exported state over and continues like the reference.
  FlatAdam resumed(params, holder);
  StepBoth(reference, ref_params, resumed, 3, 1e-2);
  EXPECT_LT(MaxDifference(params, ref_params), 1e-6);
}

TEST(GraphedCallTest, RunsTheWorkOncePerCallOnTheCpu) {
  int runs = 0;
  GraphedCall call(torch::Device(torch::kCPU), [&runs] { ++runs; });
  for (int i = 0; i < 3; ++i) call.Run();
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(call.captured());
}

}  // namespace
}  // namespace petname::train
