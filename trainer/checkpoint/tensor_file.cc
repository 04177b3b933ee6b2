#include "trainer/checkpoint/tensor_file.h"

#include <cstring>

#include "common/sha256.h"
#include "trainer/checkpoint/store.h"
#include "trainer/safetensors/reader.h"
#include "trainer/safetensors/writer.h"

// Tensor bytes are copied as they are in memory; safetensors stores them little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "tensor files assume a little-endian host");

namespace petname::checkpoint {
namespace {

using safetensors::Dtype;

bool ToDtype(torch::ScalarType type, Dtype* out) {
  switch (type) {
    case torch::kFloat32:
      *out = Dtype::kF32;
      return true;
    case torch::kInt64:
      *out = Dtype::kI64;
      return true;
    case torch::kUInt8:
      *out = Dtype::kU8;
      return true;
    default:
      return false;
  }
}

// What the file must hold to fill `into`.
Status Specs(const NamedTensors& into, std::vector<safetensors::TensorSpec>* specs) {
  for (const auto& [name, tensor] : into) {
    safetensors::TensorSpec spec;
    spec.name = name;
    if (!ToDtype(tensor.scalar_type(), &spec.dtype)) {
      return Status::Internal("tensor " + name + " has a dtype tensor files do not hold");
    }
    spec.shape = tensor.sizes().vec();
    specs->push_back(std::move(spec));
  }
  return Status::Ok();
}

// Copies `bytes` (exactly `target`'s size) into `target`, wherever it lives.
void CopyInto(std::string_view bytes, const torch::Tensor& target) {
  torch::NoGradGuard no_grad;
  const bool direct = target.is_cpu() && target.is_contiguous();
  torch::Tensor host =
      direct ? target : torch::empty(target.sizes(), target.options().device(torch::kCPU));
  if (!bytes.empty()) std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
  if (!direct) target.copy_(host);
}

}  // namespace

Status EncodeTensors(const NamedTensors& tensors,
                     const std::map<std::string, std::string>& metadata, std::string* out) {
  std::vector<torch::Tensor> hosts;  // keep the bytes the views below point at
  std::vector<safetensors::TensorData> data;
  hosts.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) {
    safetensors::TensorData t;
    t.name = name;
    if (!ToDtype(tensor.scalar_type(), &t.dtype)) {
      return Status::Internal("tensor " + name + " has a dtype tensor files do not hold");
    }
    hosts.push_back(tensor.detach().to(torch::kCPU).contiguous());
    t.shape = hosts.back().sizes().vec();
    t.bytes =
        std::string_view(static_cast<const char*>(hosts.back().data_ptr()), hosts.back().nbytes());
    data.push_back(std::move(t));
  }
  return safetensors::EncodeSafetensors(data, metadata, out);
}

Status LoadTensors(const std::string& dir, const std::string& name, const std::string& sha256,
                   const NamedTensors& into) {
  std::vector<safetensors::TensorSpec> specs;
  PETNAME_RETURN_IF_ERROR(Specs(into, &specs));
  std::string file;
  PETNAME_RETURN_IF_ERROR(ReadCheckpointFile(dir, name, safetensors::MaxFileBytes(specs), &file));
  const std::string path = dir + "/" + name;
  if (Sha256Hex(file) != sha256) return Status::Corruption(path + ": checksum mismatch");
  std::vector<std::string_view> bytes;
  Status st = safetensors::ParseSafetensors(file, specs, &bytes);
  if (!st.ok()) return Status::Corruption(path + ": " + st.message());
  for (size_t i = 0; i < into.size(); ++i) CopyInto(bytes[i], into[i].second);
  return Status::Ok();
}

}  // namespace petname::checkpoint
