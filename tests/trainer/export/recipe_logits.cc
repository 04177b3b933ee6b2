// Test tool: petname's logits for the next character after each given prefix, as
// export_test.py compares them with the exported model in PyTorch.
//
//   recipe_logits CHECKPOINT PREFIX...
//
// Prints one JSON object {"PREFIX": [vocab_size logits], ...}. Each prefix is encoded as
// `petname generate` encodes a name so far: a window of pad tokens with the prefix's characters
// shifted in from the right (only its last `window` characters remain), and the logits are
// those of the last position. Exit 1 with one line on stderr when the checkpoint cannot be
// loaded or a prefix has a character outside the vocabulary.
#include <torch/torch.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trainer/data/vocabulary.h"
#include "trainer/export/export.h"

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "recipe_logits: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace petname;
  if (argc < 3) return Fail("usage: recipe_logits CHECKPOINT PREFIX...");
  std::vector<std::string> skipped;
  std::string dir;
  checkpoint::Manifest manifest;
  model::CharLstm model(nullptr);
  Status st = exporter::LoadCheckpointModel(argv[1], /*key=*/"", &skipped, &dir, &manifest, &model);
  if (!st.ok()) return Fail(st.message());
  const int64_t window = manifest.hyper.window;
  torch::NoGradGuard no_grad;
  nlohmann::json out = nlohmann::json::object();
  for (int i = 2; i < argc; ++i) {
    const std::string prefix = argv[i];
    std::vector<int64_t> tokens(static_cast<size_t>(window), data::kPadIndex);
    for (char c : prefix) {
      const int index = data::CharIndex(c);
      if (index < 0)
        return Fail("prefix \"" + prefix + "\" has a character outside the vocabulary");
      tokens.erase(tokens.begin());
      tokens.push_back(index);
    }
    const torch::Tensor input = torch::from_blob(tokens.data(), {1, window}, torch::kInt64);
    const torch::Tensor last =
        model->forward(input).select(1, window - 1).reshape({-1}).contiguous();
    out[prefix] = std::vector<float>(last.data_ptr<float>(), last.data_ptr<float>() + last.numel());
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
