#include "trainer/checkpoint/legacy.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <climits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

constexpr int64_t kLegacyFormat = 1;

// Reads the manifest of the epoch directory `dir`. When it is of format 1 (*legacy), it is
// verified and `*out` is the format-2 manifest it converts to; a directory of any other format
// (or none) is not converted and is no error here.
Status ReadLegacyManifest(const std::string& dir, bool* legacy, Manifest* out) {
  std::string text;
  *legacy = false;
  if (!ReadCheckpointFile(dir, "manifest.json", kMaxManifestBytes, &text).ok()) return Status::Ok();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto version = j.is_object() ? j.find("format_version") : j.end();
  if (!j.is_object() || version == j.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kLegacyFormat) {
    return Status::Ok();
  }
  *legacy = true;
  j["format_version"] = kFormatVersion;  // the fields are those of format 2
  Status st = ParseManifest(j.dump(), /*key=*/"", out);
  if (!st.ok()) return Status::Corruption(dir + ": " + st.message());
  return VerifyFiles(dir, *out);
}

// Loads the TorchScript file `name` of `dir` into `value`: this runs the code it carries.
template <typename T>
Status LoadTorchScript(const std::string& dir, const char* name, T& value) {
  std::string bytes;
  PETNAME_RETURN_IF_ERROR(ReadCheckpointFile(dir, name, kMaxCheckpointFileBytes, &bytes));
  std::istringstream in(std::move(bytes));
  torch::load(value, in);
  return Status::Ok();
}

// The shape and type of every parameter of `model`, in registration order.
std::vector<std::string> Layout(model::CharLstm& model) {
  std::vector<std::string> layout;
  for (const auto& p : model->named_parameters()) {
    std::ostringstream shape;
    shape << p.key() << " " << p.value().sizes() << " " << p.value().dtype();
    layout.push_back(shape.str());
  }
  return layout;
}

Status ConvertOne(const std::string& root, const std::string& dir, const Manifest& manifest,
                  const std::string& key) {
  model::ModelOptions options;
  options.vocab_size = manifest.hyper.vocab_size;
  options.hidden_size = manifest.hyper.hidden_size;
  options.num_layers = manifest.hyper.num_layers;
  model::CharLstm model(options);
  const std::vector<std::string> want = Layout(model);
  PETNAME_RETURN_IF_ERROR(LoadTorchScript(dir, "model.pt", model));
  if (Layout(model) != want) {
    return Status::Corruption(dir +
                              "/model.pt: its parameters are not of the shape manifest.json "
                              "gives");
  }
  torch::optim::Adam adam(model->parameters(),
                          torch::optim::AdamOptions(manifest.hyper.learning_rate));
  PETNAME_RETURN_IF_ERROR(LoadTorchScript(dir, "optimizer.pt", adam));
  torch::Tensor rng;
  PETNAME_RETURN_IF_ERROR(LoadTorchScript(dir, "rng.pt", rng));
  std::vector<std::string> names;
  PETNAME_RETURN_IF_ERROR(ReadTrainingNames(dir, manifest, &names));
  {
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  }
  return SaveCheckpoint(root, manifest, INT_MAX, model, adam, names, key);
}

}  // namespace

Status ConvertLegacyCheckpoints(const std::string& root, const std::string& key,
                                std::vector<std::string>* converted) {
  int found = 0;
  for (const std::string& name : ListCheckpoints(root)) {
    const std::string dir = root + "/" + name;
    bool legacy = false;
    Manifest manifest;
    PETNAME_RETURN_IF_ERROR(ReadLegacyManifest(dir, &legacy, &manifest));
    if (!legacy) continue;
    ++found;
    try {
      PETNAME_RETURN_IF_ERROR(ConvertOne(root, dir, manifest, key));
    } catch (const c10::Error& e) {
      return Status::Corruption("cannot convert " + dir + ": " + e.what_without_backtrace());
    }
    converted->push_back(dir);
  }
  if (found == 0) return Status::NotFound("no checkpoint of format version 1 in " + root);
  return Status::Ok();
}

}  // namespace petname::checkpoint
