#include "trainer/model/plain_lstm.h"

namespace petname::model {

PlainCharLstmImpl::PlainCharLstmImpl(const ModelOptions& options) : options_(options) {
  lstm_ = register_module(
      "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(options.vocab_size, options.hidden_size)
                                  .num_layers(options.num_layers)
                                  .batch_first(true)));
  head_ = register_module("head", torch::nn::Linear(options.hidden_size, options.vocab_size));
}

torch::Tensor PlainCharLstmImpl::forward(const torch::Tensor& tokens) {
  torch::Tensor x = torch::one_hot(tokens, options_.vocab_size).to(torch::kFloat32);
  return head_->forward(std::get<0>(lstm_->forward(x)));
}

}  // namespace petname::model
