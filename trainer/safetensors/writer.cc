#include "trainer/safetensors/writer.h"

#include <nlohmann/json.hpp>
#include <set>

namespace petname::safetensors {
namespace {

constexpr const char* kMetadataKey = "__metadata__";
constexpr size_t kAlignment = 8;

void AppendLittleEndian(uint64_t value, size_t bytes, std::string* out) {
  for (size_t i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

Status CheckTensor(const TensorData& t, const std::set<std::string>& seen) {
  if (t.name.empty()) return Status::InvalidArgument("a tensor without a name");
  if (t.name == kMetadataKey || seen.count(t.name) > 0) {
    return Status::InvalidArgument("tensor name " + t.name + " is reserved or repeated");
  }
  uint64_t count = 1;
  for (int64_t d : t.shape) {
    if (d < 0) return Status::InvalidArgument("tensor " + t.name + " has a negative dimension");
    count *= static_cast<uint64_t>(d);
  }
  if (count * DtypeSize(t.dtype) != t.bytes.size()) {
    return Status::InvalidArgument("tensor " + t.name + " has " + std::to_string(t.bytes.size()) +
                                   " bytes for " + std::to_string(count) + " values of " +
                                   DtypeName(t.dtype));
  }
  return Status::Ok();
}

}  // namespace

Status EncodeSafetensors(const std::vector<TensorData>& tensors,
                         const std::map<std::string, std::string>& metadata, std::string* out) {
  nlohmann::json header = nlohmann::json::object();
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const TensorData& t : tensors) {
    PETNAME_RETURN_IF_ERROR(CheckTensor(t, seen));
    seen.insert(t.name);
    const uint64_t end = offset + t.bytes.size();
    header[t.name] = {
        {"dtype", DtypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, end}}};
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
  for (const TensorData& t : tensors) out->append(t.bytes);
  return Status::Ok();
}

}  // namespace petname::safetensors
