#include "trainer/generate/generate.h"

#include <torch/torch.h>

#include <set>

#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/checkpoint/store.h"
#include "trainer/data/vocabulary.h"
#include "trainer/generate/sampling.h"
#include "trainer/model/model.h"

namespace petname::generate {
namespace {

// Samples one lower-case name (without the prefix's window padding) from the model.
std::string SampleName(model::CharLstm& model, const GenerateOptions& o, int window,
                       Random* random) {
  std::string name = o.prefix;
  std::vector<int64_t> tokens(static_cast<size_t>(window), data::kPadIndex);
  for (char c : o.prefix) {
    tokens.erase(tokens.begin());
    tokens.push_back(data::CharIndex(c));
  }
  while (static_cast<int>(name.size()) < o.max_length) {
    torch::Tensor input = torch::from_blob(tokens.data(), {1, window}, torch::kInt64);
    torch::Tensor last = model->forward(input).select(1, window - 1).reshape({-1}).contiguous();
    std::vector<float> logits(last.data_ptr<float>(), last.data_ptr<float>() + last.numel());
    int next = SampleIndex(logits, o.temperature, !name.empty(), random->Uniform());
    if (next == data::kStopIndex) break;
    name.push_back(data::kVocabulary[static_cast<size_t>(next)]);
    tokens.erase(tokens.begin());
    tokens.push_back(next);
  }
  return name;
}

Status RunGenerate(const GenerateOptions& o, std::vector<std::string>* names,
                   std::vector<std::string>* warnings, std::string* source) {
  std::string dir;
  checkpoint::Manifest manifest;
  PETNAME_RETURN_IF_ERROR(
      checkpoint::ResolveCheckpoint(o.checkpoint, warnings, &dir, &manifest, o.checkpoint_key));
  if (manifest.vocabulary != data::kVocabulary) {
    return Status::FailedPrecondition(dir + " uses another vocabulary");
  }
  model::ModelOptions model_options;
  model_options.vocab_size = manifest.hyper.vocab_size;
  model_options.hidden_size = manifest.hyper.hidden_size;
  model_options.num_layers = manifest.hyper.num_layers;
  model::CharLstm model(model_options);
  PETNAME_RETURN_IF_ERROR(checkpoint::LoadModel(dir, manifest, model));
  model->eval();
  std::set<std::string> excluded;
  if (o.exclude_training_names) {
    std::vector<std::string> training;
    PETNAME_RETURN_IF_ERROR(checkpoint::ReadTrainingNames(dir, manifest, &training));
    excluded.insert(training.begin(), training.end());
  }

  *source = checkpoint::DescribeCheckpoint(dir, manifest, o.checkpoint_key);
  torch::NoGradGuard no_grad;
  Random random(o.seed);
  const int64_t max_attempts = 100 * o.count;
  for (int64_t attempt = 0; attempt < max_attempts && static_cast<int64_t>(names->size()) < o.count;
       ++attempt) {
    std::string name = SampleName(model, o, static_cast<int>(manifest.hyper.window), &random);
    if (excluded.count(name) == 0) names->push_back(TitleCase(name));
  }
  if (static_cast<int64_t>(names->size()) < o.count) {
    return Status::FailedPrecondition("only " + std::to_string(names->size()) +
                                      " names not in the training set after " +
                                      std::to_string(max_attempts) + " attempts");
  }
  return Status::Ok();
}

}  // namespace

Status Generate(const GenerateOptions& options, std::vector<std::string>* names,
                std::vector<std::string>* warnings, std::string* source) {
  try {
    return RunGenerate(options, names, warnings, source);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("generation failed: ") + e.what_without_backtrace());
  }
}

}  // namespace petname::generate
