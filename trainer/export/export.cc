#include "trainer/export/export.h"

#include <torch/torch.h>

#include <filesystem>

#include "common/file_util.h"
#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/store.h"
#include "trainer/data/vocabulary.h"
#include "trainer/export/recipe_format.h"
#include "trainer/export/safetensors_writer.h"

namespace petname::exporter {
namespace {

Status CollectTensors(model::CharLstm& model, std::vector<F32Tensor>* out) {
  for (const auto& p : model->named_parameters()) {
    F32Tensor t;
    if (!RecipeTensorName(p.key(), &t.name)) {
      return Status::Internal("parameter " + p.key() + " has no name in the recipe's model");
    }
    const torch::Tensor host = p.value().detach().to(torch::kCPU, torch::kFloat32).contiguous();
    t.shape = host.sizes().vec();
    const float* values = host.data_ptr<float>();
    t.values.assign(values, values + host.numel());
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status Write(model::CharLstm& model, const checkpoint::Manifest& manifest,
             const std::string& output) {
  std::vector<F32Tensor> tensors;
  PETNAME_RETURN_IF_ERROR(CollectTensors(model, &tensors));
  std::string bytes;
  PETNAME_RETURN_IF_ERROR(EncodeSafetensors(tensors, RecipeMetadata(manifest), &bytes));
  PETNAME_RETURN_IF_ERROR(WriteFileAtomically(output, bytes));
  // The temporary file was private (0600); the model is for other users and pods to read.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::permissions(output,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                      fs::perms::others_read,
                  ec);
  return Status::Ok();
}

Status Load(const std::string& path, std::vector<std::string>* skipped, std::string* dir,
            checkpoint::Manifest* manifest, model::CharLstm* model) {
  PETNAME_RETURN_IF_ERROR(checkpoint::ResolveCheckpoint(path, skipped, dir, manifest));
  if (manifest->vocabulary != data::kVocabulary) {
    return Status::FailedPrecondition(*dir + " uses another vocabulary");
  }
  model::ModelOptions options;
  options.vocab_size = manifest->hyper.vocab_size;
  options.hidden_size = manifest->hyper.hidden_size;
  options.num_layers = manifest->hyper.num_layers;
  model::CharLstm loaded(options);
  PETNAME_RETURN_IF_ERROR(checkpoint::LoadModel(*dir, loaded));
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

Status LoadCheckpointModel(const std::string& path, std::vector<std::string>* skipped,
                           std::string* dir, checkpoint::Manifest* manifest,
                           model::CharLstm* model) {
  return Guarded("cannot load the checkpoint",
                 [&] { return Load(path, skipped, dir, manifest, model); });
}

Status ExportCheckpoint(const std::string& path, const std::string& output,
                        std::vector<std::string>* skipped, std::string* dir) {
  checkpoint::Manifest manifest;
  model::CharLstm model(nullptr);
  PETNAME_RETURN_IF_ERROR(LoadCheckpointModel(path, skipped, dir, &manifest, &model));
  return WriteRecipeModel(model, manifest, output);
}

}  // namespace petname::exporter
