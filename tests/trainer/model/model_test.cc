#include "trainer/model/model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trainer/data/dataset.h"
#include "trainer/model/lstm_recurrence.h"
#include "trainer/model/plain_lstm.h"

namespace petname::model {
namespace {

constexpr int64_t kBatch = 6;
constexpr int64_t kSteps = 8;

torch::Tensor Tokens(int64_t vocab) {
  return torch::randint(vocab, {kBatch, kSteps}, torch::kInt64);
}

// Training windows as the dataset encodes them (left-padded, every prefix of every name),
// shuffled, with names repeated as in the real data: rows share most of their prefixes.
torch::Tensor PaddedWindows(int64_t max_rows) {
  data::Examples ex;
  for (const char* name : {"spot", "spud", "sparky", "max", "maxi", "max", "bella", "bell", "spot",
                           "lucy", "luna", "lu", "rocky", "rex"}) {
    data::EncodeName(name, kSteps, &ex);
  }
  const torch::Tensor all =
      torch::from_blob(ex.inputs.data(), {static_cast<int64_t>(ex.count), kSteps}, torch::kUInt8)
          .to(torch::kInt64);
  torch::manual_seed(7);
  return all.index_select(0, torch::randperm(all.size(0)).slice(0, 0, max_rows));
}

void CopyParameters(const torch::nn::Module& from, torch::nn::Module* to) {
  torch::NoGradGuard no_grad;
  auto src = from.named_parameters();
  for (auto& p : to->named_parameters()) p.value().copy_(src[p.key()]);
}

// The model and the reference with identical weights; `seed` fixes the inputs drawn next.
struct Pair {
  explicit Pair(uint64_t seed, LstmImpl impl = LstmImpl::kHostForest) {
    options.impl = impl;
    model = CharLstm(options);
    torch::manual_seed(seed);
    CopyParameters(*reference, model.get());
  }
  ModelOptions options;
  CharLstm model{options};
  PlainCharLstm reference{options};
};

TEST(ModelTest, ParameterNamesAndOrderMatchTorchLstm) {
  ModelOptions options;
  CharLstm model(options);
  PlainCharLstm reference(options);
  std::vector<std::string> names, expected;
  for (const auto& p : model->named_parameters()) names.push_back(p.key());
  for (const auto& p : reference->named_parameters()) expected.push_back(p.key());
  EXPECT_EQ(names, expected);
  ASSERT_EQ(names.size(), 18u);
  EXPECT_EQ(names[0], "lstm.weight_ih_l0");
  EXPECT_EQ(names[17], "head.bias");
  for (const auto& p : model->named_parameters()) {
    EXPECT_EQ(p.value().sizes(), reference->named_parameters()[p.key()].sizes()) << p.key();
  }
}

TEST(ModelTest, EmbeddingIsExactlyTheOneHotProduct) {
  torch::manual_seed(1);
  const torch::Tensor w = torch::randn({512, 31});
  const torch::Tensor x = Tokens(31);
  const torch::Tensor one_hot = torch::matmul(torch::one_hot(x, 31).to(torch::kFloat32), w.t());
  const torch::Tensor lookup = torch::embedding(w.t().contiguous(), x);
  EXPECT_TRUE(torch::equal(one_hot, lookup));
}

// Logits of the model and nn::LSTM on `tokens` agree within 1e-5, and so does every
// parameter's gradient of a random mix of the logits (relative to its largest element).
void ExpectForwardAndGradientsMatch(Pair& pair, const torch::Tensor& tokens) {
  const ModelOptions& options = pair.options;
  CharLstm& model = pair.model;
  PlainCharLstm& reference = pair.reference;
  const torch::Tensor mix = torch::randn({tokens.size(0), tokens.size(1), options.vocab_size});

  const torch::Tensor ours = model->forward(tokens);
  const torch::Tensor theirs = reference->forward(tokens);
  ASSERT_EQ(ours.sizes(), theirs.sizes());
  EXPECT_EQ(ours.scalar_type(), torch::kFloat32);
  EXPECT_LT((ours - theirs).abs().max().item<float>(), 1e-5);

  (ours * mix).sum().backward();
  (theirs * mix).sum().backward();
  auto expected = reference->named_parameters();
  for (const auto& p : model->named_parameters()) {
    const torch::Tensor g = p.value().grad();
    const torch::Tensor e = expected[p.key()].grad();
    ASSERT_TRUE(g.defined()) << p.key();
    const float scale = std::max(1.0f, e.abs().max().item<float>());
    EXPECT_LT((g - e).abs().max().item<float>(), 1e-5 * scale) << p.key();
  }
}

TEST(ModelTest, ForwardAndGradientsMatchTorchLstm) {
  Pair pair(2);
  ExpectForwardAndGradientsMatch(pair, Tokens(31));
}

// The prefix forest shares the work of rows with common prefixes; the result must not change.
TEST(ModelTest, SharedPrefixesMatchTorchLstm) {
  const torch::Tensor windows = PaddedWindows(64);
  ASSERT_EQ(windows.size(0), 64);
  Pair pair(10);
  ExpectForwardAndGradientsMatch(pair, windows);
}

TEST(ModelTest, DuplicateRowsMatchTorchLstm) {
  const torch::Tensor windows = PaddedWindows(16);
  Pair pair(11);
  ExpectForwardAndGradientsMatch(pair,
                                 torch::cat({windows, windows.flip(0), windows.slice(0, 0, 5)}));
}

TEST(ModelTest, IdenticalRowsMatchTorchLstm) {
  Pair pair(12);
  ExpectForwardAndGradientsMatch(pair, PaddedWindows(1).repeat({9, 1}));
}

// The device-generic implementations (the GPU's), run on the CPU, are the same function.
TEST(ModelTest, DeviceForestAndDenseMatchTorchLstm) {
  const torch::Tensor windows = PaddedWindows(64);
  for (LstmImpl impl : {LstmImpl::kDeviceForest, LstmImpl::kCudnn}) {
    SCOPED_TRACE(LstmImplName(impl));
    Pair shared(16, impl);
    ExpectForwardAndGradientsMatch(shared, windows);
    Pair random(17, impl);
    ExpectForwardAndGradientsMatch(random, Tokens(31));
  }
}

TEST(ModelTest, SingleRowMatchesTorchLstm) {
  Pair pair(13);
  ExpectForwardAndGradientsMatch(pair, PaddedWindows(1));
}

TEST(ModelTest, SingleStepMatchesTorchLstm) {
  Pair pair(14);
  ExpectForwardAndGradientsMatch(pair, torch::tensor({3, 0, 3, 7, 0}, torch::kInt64).view({5, 1}));
}

TEST(ModelTest, StackRunsOncePerDistinctPrefix) {
  LstmStack stack(31, 16, 2);
  const torch::Tensor windows = PaddedWindows(64);
  const StackOutput out = stack->forward(windows, torch::kFloat32);
  EXPECT_EQ(out.nodes.size(0), out.forest.size());
  EXPECT_LT(out.forest.size(), windows.numel() / 2);
  EXPECT_EQ(out.node_index.sizes(), windows.sizes());
}

// Three Adam steps on cross-entropy against `targets` give the same losses within 1e-5.
void ExpectTrainingStepsMatch(Pair& pair, const torch::Tensor& tokens,
                              const torch::Tensor& targets) {
  CharLstm& model = pair.model;
  PlainCharLstm& reference = pair.reference;
  torch::optim::Adam ours_opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  torch::optim::Adam theirs_opt(reference->parameters(), torch::optim::AdamOptions(1e-3));
  for (int step = 0; step < 3; ++step) {
    ours_opt.zero_grad();
    theirs_opt.zero_grad();
    torch::Tensor a = torch::cross_entropy_loss(model->forward(tokens).transpose(1, 2), targets);
    torch::Tensor b =
        torch::cross_entropy_loss(reference->forward(tokens).transpose(1, 2), targets);
    EXPECT_NEAR(a.item<float>(), b.item<float>(), 1e-5) << "step " << step;
    a.backward();
    b.backward();
    ours_opt.step();
    theirs_opt.step();
  }
}

TEST(ModelTest, CrossEntropyTrainingStepMatchesTorchLstm) {
  Pair pair(3);
  const torch::Tensor tokens = Tokens(31);
  ExpectTrainingStepsMatch(pair, tokens, Tokens(31));
}

TEST(ModelTest, CrossEntropyTrainingStepOnPaddedWindowsMatchesTorchLstm) {
  const torch::Tensor windows = PaddedWindows(48);
  // The dataset's target is the window shifted by one; any valid tokens test the same.
  const torch::Tensor targets = torch::roll(windows, -1, 1);
  Pair pair(15);
  ExpectTrainingStepsMatch(pair, windows, targets);
}

TEST(ModelTest, Bf16StaysCloseToFp32AndReturnsFp32) {
  for (LstmImpl impl : {LstmImpl::kHostForest, LstmImpl::kDeviceForest, LstmImpl::kCudnn}) {
    SCOPED_TRACE(LstmImplName(impl));
    torch::manual_seed(4);
    ModelOptions options;
    options.impl = impl;
    CharLstm fp32(options);
    options.precision = Precision::kBf16;
    CharLstm bf16(options);
    CopyParameters(*fp32, bf16.get());
    const torch::Tensor tokens = Tokens(options.vocab_size);
    const torch::Tensor out = bf16->forward(tokens);
    EXPECT_EQ(out.scalar_type(), torch::kFloat32);
    EXPECT_LT((out - fp32->forward(tokens)).abs().max().item<float>(), 5e-2);
    out.sum().backward();
    for (const auto& p : bf16->parameters()) {
      EXPECT_EQ(p.grad().scalar_type(), torch::kFloat32);
    }
  }
}

TEST(ModelTest, SameSeedSameModelAndOutput) {
  ModelOptions options;
  torch::manual_seed(5);
  CharLstm a(options);
  torch::manual_seed(5);
  CharLstm b(options);
  const torch::Tensor tokens = Tokens(options.vocab_size);
  EXPECT_TRUE(torch::equal(a->forward(tokens), b->forward(tokens)));
}

TEST(ModelTest, NoGradForwardWorks) {
  CharLstm model(ModelOptions{});
  torch::NoGradGuard no_grad;
  EXPECT_EQ(model->forward(Tokens(31)).sizes(), (std::vector<int64_t>{kBatch, kSteps, 31}));
}

TEST(ModelTest, RejectsBadTokens) {
  for (LstmImpl impl : {LstmImpl::kHostForest, LstmImpl::kDeviceForest, LstmImpl::kCudnn}) {
    ModelOptions options;
    options.impl = impl;
    CharLstm model(options);
    EXPECT_THROW(model->forward(torch::zeros({kBatch, kSteps}, torch::kFloat32)), c10::Error);
    EXPECT_THROW(model->forward(torch::zeros({kBatch}, torch::kInt64)), c10::Error);
    EXPECT_THROW(model->forward(torch::full({kBatch, kSteps}, 31, torch::kInt64)), c10::Error);
    EXPECT_THROW(model->forward(torch::full({kBatch, kSteps}, -1, torch::kInt64)), c10::Error);
  }
}

// A device other than the CPU (the meta device stands in for a GPU here) gets an error from the
// host-only kernels, never a host loop over device memory.
TEST(ModelTest, HostOnlyKernelsRefuseDeviceTensors) {
  CharLstm model(ModelOptions{});
  EXPECT_THROW(model->forward(torch::zeros({kBatch, kSteps},
                                           torch::dtype(torch::kInt64).device(torch::kMeta))),
               c10::Error);
  const torch::Tensor tokens = Tokens(31);
  const PrefixForest forest = BuildPrefixForest(tokens.data_ptr<int64_t>(), kBatch, kSteps);
  const torch::Tensor w_hh = torch::zeros({4 * 8, 8});
  EXPECT_THROW(LstmRecurrence(torch::zeros({forest.size(), 4 * 8}, torch::kMeta), w_hh, forest,
                              torch::kFloat32),
               c10::Error);
}

TEST(ModelTest, SecondBackwardThroughTheSameGraphIsRefused) {
  CharLstm model(ModelOptions{});
  torch::Tensor loss = model->forward(Tokens(31)).sum();
  loss.backward({}, /*retain_graph=*/true);
  EXPECT_THROW(loss.backward(), c10::Error);
}

}  // namespace
}  // namespace petname::model
