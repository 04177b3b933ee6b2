#include "trainer/export/export.h"

#include <torch/torch.h>

#include "common/file_util.h"
#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/checkpoint/store.h"
#include "trainer/checkpoint/tensor_file.h"
#include "trainer/data/vocabulary.h"
#include "trainer/export/recipe_format.h"

namespace petname::exporter {
namespace {

Status CollectTensors(model::CharLstm& model, checkpoint::NamedTensors* out) {
  for (const auto& p : model->named_parameters()) {
    std::string name;
    if (!RecipeTensorName(p.key(), &name)) {
      return Status::Internal("parameter " + p.key() + " has no name in the recipe's model");
    }
    out->emplace_back(name, p.value().to(torch::kFloat32));
  }
  return Status::Ok();
}

Status Write(model::CharLstm& model, const checkpoint::Manifest& manifest,
             const std::string& output) {
  checkpoint::NamedTensors tensors;
  PETNAME_RETURN_IF_ERROR(CollectTensors(model, &tensors));
  std::string bytes;
  PETNAME_RETURN_IF_ERROR(checkpoint::EncodeTensors(tensors, RecipeMetadata(manifest), &bytes));
  // The model is for other users and pods to read: the temporary file is given 0644 through
  // its descriptor before it is renamed into place.
  return WriteFileAtomically(output, bytes, 0644);
}

Status Load(const std::string& path, const std::string& key, std::vector<std::string>* skipped,
            std::string* dir, checkpoint::Manifest* manifest, model::CharLstm* model) {
  PETNAME_RETURN_IF_ERROR(checkpoint::ResolveCheckpoint(path, skipped, dir, manifest, key));
  if (manifest->vocabulary != data::kVocabulary) {
    return Status::FailedPrecondition(*dir + " uses another vocabulary");
  }
  model::ModelOptions options;
  options.vocab_size = manifest->hyper.vocab_size;
  options.hidden_size = manifest->hyper.hidden_size;
  options.num_layers = manifest->hyper.num_layers;
  model::CharLstm loaded(options);
  PETNAME_RETURN_IF_ERROR(checkpoint::LoadModel(*dir, *manifest, loaded));
  loaded->eval();
  *model = loaded;
  return Status::Ok();
}

// Runs `f`, turning a LibTorch exception into a Status.
template <typename F>
Status Guarded(const char* what, F f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    return Status::Internal(std::string(what) + ": " + e.what_without_backtrace());
  }
}

}  // namespace

Status WriteRecipeModel(model::CharLstm& model, const checkpoint::Manifest& manifest,
                        const std::string& output) {
  return Guarded("cannot export the model", [&] { return Write(model, manifest, output); });
}

Status LoadCheckpointModel(const std::string& path, const std::string& key,
                           std::vector<std::string>* skipped, std::string* dir,
                           checkpoint::Manifest* manifest, model::CharLstm* model) {
  return Guarded("cannot load the checkpoint",
                 [&] { return Load(path, key, skipped, dir, manifest, model); });
}

Status ExportCheckpoint(const std::string& path, const std::string& output, const std::string& key,
                        std::vector<std::string>* skipped, std::string* source) {
  std::string dir;
  checkpoint::Manifest manifest;
  model::CharLstm model(nullptr);
  PETNAME_RETURN_IF_ERROR(LoadCheckpointModel(path, key, skipped, &dir, &manifest, &model));
  PETNAME_RETURN_IF_ERROR(WriteRecipeModel(model, manifest, output));
  *source = checkpoint::DescribeCheckpoint(dir, manifest, key);
  return Status::Ok();
}

}  // namespace petname::exporter
