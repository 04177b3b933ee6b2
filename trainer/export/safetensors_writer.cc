#include "trainer/export/safetensors_writer.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

namespace petname::exporter {
namespace {

constexpr const char* kMetadataKey = "__metadata__";
constexpr size_t kAlignment = 8;

void AppendLittleEndian(uint64_t value, size_t bytes, std::string* out) {
  for (size_t i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

Status CheckTensor(const F32Tensor& t, const std::set<std::string>& seen) {
  if (t.name.empty()) return Status::InvalidArgument("a tensor without a name");
  if (t.name == kMetadataKey || seen.count(t.name) > 0) {
    return Status::InvalidArgument("tensor name " + t.name + " is reserved or repeated");
  }
  uint64_t count = 1;
  for (int64_t d : t.shape) {
    if (d < 0) return Status::InvalidArgument("tensor " + t.name + " has a negative dimension");
    count *= static_cast<uint64_t>(d);
  }
  if (count != t.values.size()) {
    return Status::InvalidArgument("tensor " + t.name + " has " + std::to_string(t.values.size()) +
                                   " values for a shape of " + std::to_string(count));
  }
  return Status::Ok();
}

}  // namespace

Status EncodeSafetensors(const std::vector<F32Tensor>& tensors,
                         const std::map<std::string, std::string>& metadata, std::string* out) {
  nlohmann::json header = nlohmann::json::object();
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const F32Tensor& t : tensors) {
    PETNAME_RETURN_IF_ERROR(CheckTensor(t, seen));
    seen.insert(t.name);
    const uint64_t end = offset + sizeof(float) * t.values.size();
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, end}}};
    offset = end;
  }
  header[kMetadataKey] = metadata;
  // Invalid UTF-8 in a metadata value is replaced (U+FFFD) rather than thrown on.
  std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.append((kAlignment - (8 + text.size()) % kAlignment) % kAlignment, ' ');

  out->clear();
  out->reserve(8 + text.size() + offset);
  AppendLittleEndian(text.size(), 8, out);
  out->append(text);
  for (const F32Tensor& t : tensors) {
    for (float v : t.values) {
      uint32_t bits = 0;
      std::memcpy(&bits, &v, sizeof(bits));
      AppendLittleEndian(bits, sizeof(bits), out);
    }
  }
  return Status::Ok();
}

}  // namespace petname::exporter
