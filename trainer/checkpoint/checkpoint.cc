#include "trainer/checkpoint/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>
#include <sstream>
#include <utility>

#include "common/file_util.h"
#include "common/sha256.h"
#include "trainer/checkpoint/adam_state.h"
#include "trainer/checkpoint/store.h"
#include "trainer/checkpoint/tensor_file.h"

namespace petname::checkpoint {
namespace {

constexpr const char* kGeneratorTensor = "cpu_generator";

// The sha256 the manifest records for `name`, or Corruption when it lists no such file.
Status Listed(const std::string& dir, const Manifest& manifest, const char* name,
              std::string* sha256) {
  const auto it = manifest.files.find(name);
  if (it == manifest.files.end()) {
    return Status::Corruption(dir + ": manifest.json lists no " + name);
  }
  *sha256 = it->second;
  return Status::Ok();
}

NamedTensors Parameters(model::CharLstm& model) {
  NamedTensors tensors;
  for (const auto& p : model->named_parameters()) tensors.emplace_back(p.key(), p.value());
  return tensors;
}

Status WriteTensors(const CheckpointWriter& writer, const char* name, const NamedTensors& tensors) {
  std::string bytes;
  PETNAME_RETURN_IF_ERROR(EncodeTensors(tensors, {}, &bytes));
  return WritePrivateFile(writer.FilePath(name), bytes);
}

// Runs `f`, turning a LibTorch exception into Corruption about `what`.
template <typename F>
Status Guarded(const std::string& what, F f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    return Status::Corruption("cannot load " + what + ": " + e.what_without_backtrace());
  }
}

Status LoadGenerator(const std::string& dir, const Manifest& manifest) {
  std::string sha256;
  PETNAME_RETURN_IF_ERROR(Listed(dir, manifest, kRngFile, &sha256));
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  torch::Tensor state = torch::empty_like(gen.get_state());
  PETNAME_RETURN_IF_ERROR(LoadTensors(dir, kRngFile, sha256, {{kGeneratorTensor, state}}));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
  return Status::Ok();
}

}  // namespace

Status SaveCheckpoint(const std::string& root, const Manifest& manifest, int keep,
                      model::CharLstm& model, torch::optim::Adam& optimizer,
                      const std::vector<std::string>& training_names, const std::string& key) {
  CheckpointWriter writer;
  PETNAME_RETURN_IF_ERROR(
      CheckpointWriter::Begin(root, manifest.epoch, &writer, manifest.owner, key));
  try {
    PETNAME_RETURN_IF_ERROR(WriteTensors(writer, kModelFile, Parameters(model)));
    PETNAME_RETURN_IF_ERROR(
        WriteTensors(writer, kOptimizerFile, AdamStateTensors(model, optimizer)));
    PETNAME_RETURN_IF_ERROR(WriteTensors(
        writer, kRngFile, {{kGeneratorTensor, at::detail::getDefaultCPUGenerator().get_state()}}));
  } catch (const c10::Error& e) {
    return Status::Internal("cannot serialise the checkpoint: " +
                            std::string(e.what_without_backtrace()));
  }
  std::string names;
  for (const std::string& n : training_names) names += n + '\n';
  PETNAME_RETURN_IF_ERROR(WritePrivateFile(writer.FilePath(kNamesFile), names));
  return writer.Commit(manifest, keep);
}

Status LoadModel(const std::string& dir, const Manifest& manifest, model::CharLstm& model) {
  std::string sha256;
  PETNAME_RETURN_IF_ERROR(Listed(dir, manifest, kModelFile, &sha256));
  return Guarded(dir + "/" + kModelFile,
                 [&] { return LoadTensors(dir, kModelFile, sha256, Parameters(model)); });
}

Status LoadTrainingState(const std::string& dir, const Manifest& manifest, model::CharLstm& model,
                         torch::optim::Adam& optimizer) {
  PETNAME_RETURN_IF_ERROR(LoadModel(dir, manifest, model));
  std::string sha256;
  PETNAME_RETURN_IF_ERROR(Listed(dir, manifest, kOptimizerFile, &sha256));
  return Guarded("the training state in " + dir, [&] {
    PETNAME_RETURN_IF_ERROR(LoadAdamState(dir, kOptimizerFile, sha256, model, optimizer));
    return LoadGenerator(dir, manifest);
  });
}

Status ReadTrainingNames(const std::string& dir, const Manifest& manifest,
                         std::vector<std::string>* names) {
  std::string sha256;
  PETNAME_RETURN_IF_ERROR(Listed(dir, manifest, kNamesFile, &sha256));
  std::string text;
  PETNAME_RETURN_IF_ERROR(ReadCheckpointFile(dir, kNamesFile, kMaxCheckpointFileBytes, &text));
  if (Sha256Hex(text) != sha256) {
    return Status::Corruption(dir + "/" + kNamesFile + ": checksum mismatch");
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) names->push_back(line);
  return Status::Ok();
}

}  // namespace petname::checkpoint
