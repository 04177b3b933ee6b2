#include "trainer/train/evaluation.h"

#include <string_view>

#include "common/sha256.h"
#include "trainer/data/vocabulary.h"

namespace petname::train {

torch::Tensor ValidationSums(model::CharLstm& model, const torch::Tensor& x, const torch::Tensor& y,
                             int64_t batch_size) {
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor loss_sum =
      torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(x.device()));
  torch::Tensor correct = torch::zeros({}, torch::TensorOptions(torch::kInt64).device(x.device()));
  for (int64_t begin = 0; begin < x.size(0); begin += batch_size) {
    torch::Tensor xb = x.slice(0, begin, begin + batch_size);
    torch::Tensor yb = y.slice(0, begin, begin + batch_size).reshape({-1});
    torch::Tensor logits = model->forward(xb).reshape({-1, data::kVocabularySize});
    loss_sum += torch::nn::functional::cross_entropy(
        logits, yb, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    correct += logits.argmax(-1).eq(yb).sum();
  }
  model->train();
  return torch::stack({loss_sum.cpu(), correct.cpu().to(torch::kFloat64),
                       torch::tensor(static_cast<double>(y.numel()), torch::kFloat64)});
}

std::string ParameterChecksum(model::CharLstm& model) {
  Sha256 h;
  for (const torch::Tensor& p : model->parameters()) {
    torch::Tensor t = p.detach().to(torch::kCPU).contiguous();
    h.Update(std::string_view(static_cast<const char*>(t.data_ptr()), t.nbytes()));
  }
  return h.HexDigest();
}

}  // namespace petname::train
