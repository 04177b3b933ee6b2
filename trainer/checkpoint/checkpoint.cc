#include "trainer/checkpoint/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>
#include <sstream>
#include <utility>

#include "common/file_util.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

std::string Join(const std::string& dir, const char* name) { return dir + "/" + name; }

// Where the model's parameters live: checkpoint tensors are mapped there on load, so that a
// checkpoint written on one device loads on any other.
torch::Device DeviceOf(model::CharLstm& model) { return model->parameters().front().device(); }

// Serialises `value` with torch::save into memory and writes it as `path`, so that every
// failure (ENOSPC included) surfaces as a Status carrying its errno.
template <typename T>
Status SaveTo(const std::string& path, const T& value) {
  std::ostringstream bytes;
  try {
    torch::save(value, bytes);
  } catch (const c10::Error& e) {
    return Status::Internal("cannot serialise " + path + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Internal("cannot serialise " + path + ": " + e.what());
  }
  return WritePrivateFile(path, bytes.str());
}

// Deserialises the tensor file `name` of `dir` into `value` (mapped to `device`, if given),
// reading it through ReadCheckpointFile so that only a regular file reaches LibTorch.
template <typename T>
Status LoadFrom(const std::string& dir, const char* name, T& value,
                c10::optional<torch::Device> device) {
  std::string bytes;
  PETNAME_RETURN_IF_ERROR(ReadCheckpointFile(dir, name, kMaxCheckpointFileBytes, &bytes));
  std::istringstream in(std::move(bytes));
  torch::load(value, in, device);
  return Status::Ok();
}

// The shape and type of every parameter of `model`, in registration order.
std::vector<std::pair<std::string, std::string>> Layout(model::CharLstm& model) {
  std::vector<std::pair<std::string, std::string>> layout;
  for (const auto& p : model->named_parameters()) {
    std::ostringstream shape;
    shape << p.value().sizes() << " " << p.value().dtype();
    layout.emplace_back(p.key(), shape.str());
  }
  return layout;
}

}  // namespace

Status SaveCheckpoint(const std::string& root, const Manifest& manifest, int keep,
                      model::CharLstm& model, torch::optim::Optimizer& optimizer,
                      const std::vector<std::string>& training_names) {
  CheckpointWriter writer;
  PETNAME_RETURN_IF_ERROR(CheckpointWriter::Begin(root, manifest.epoch, &writer, manifest.owner));
  PETNAME_RETURN_IF_ERROR(SaveTo(writer.FilePath("model.pt"), model));
  PETNAME_RETURN_IF_ERROR(SaveTo(writer.FilePath("optimizer.pt"), optimizer));
  PETNAME_RETURN_IF_ERROR(
      SaveTo(writer.FilePath("rng.pt"), at::detail::getDefaultCPUGenerator().get_state()));
  std::string names;
  for (const std::string& n : training_names) names += n + '\n';
  PETNAME_RETURN_IF_ERROR(WritePrivateFile(writer.FilePath("names.txt"), names));
  return writer.Commit(manifest, keep);
}

Status LoadModel(const std::string& dir, model::CharLstm& model) {
  const auto want = Layout(model);
  try {
    PETNAME_RETURN_IF_ERROR(LoadFrom(dir, "model.pt", model, DeviceOf(model)));
  } catch (const c10::Error& e) {
    return Status::Corruption("cannot load " + Join(dir, "model.pt") + ": " +
                              e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Corruption("cannot load " + Join(dir, "model.pt") + ": " + e.what());
  }
  // torch::load puts a tensor of any shape into a parameter; the model's kernels trust shapes.
  const auto got = Layout(model);
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      return Status::Corruption(Join(dir, "model.pt") + ": parameter " + got[i].first + " is " +
                                got[i].second + ", expected " + want[i].second);
    }
  }
  return Status::Ok();
}

Status LoadTrainingState(const std::string& dir, model::CharLstm& model,
                         torch::optim::Optimizer& optimizer) {
  PETNAME_RETURN_IF_ERROR(LoadModel(dir, model));
  try {
    PETNAME_RETURN_IF_ERROR(LoadFrom(dir, "optimizer.pt", optimizer, DeviceOf(model)));
    torch::Tensor rng;
    PETNAME_RETURN_IF_ERROR(LoadFrom(dir, "rng.pt", rng, c10::nullopt));
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  } catch (const c10::Error& e) {
    return Status::Corruption("cannot load the training state in " + dir + ": " +
                              e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Corruption("cannot load the training state in " + dir + ": " + e.what());
  }
  return Status::Ok();
}

Status ReadTrainingNames(const std::string& dir, std::vector<std::string>* names) {
  std::string text;
  PETNAME_RETURN_IF_ERROR(ReadCheckpointFile(dir, "names.txt", kMaxCheckpointFileBytes, &text));
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) names->push_back(line);
  return Status::Ok();
}

}  // namespace petname::checkpoint
