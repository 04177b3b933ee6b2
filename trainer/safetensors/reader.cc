#include "trainer/safetensors/reader.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace petname::safetensors {
namespace {

using nlohmann::json;

constexpr const char* kMetadataKey = "__metadata__";
constexpr size_t kShownChars = 40;  // of a name or dtype taken from the file, in messages
constexpr size_t kShownDims = 8;

// Text from the file, short enough for an error line.
std::string Shown(const std::string& text) {
  return text.size() <= kShownChars ? text : text.substr(0, kShownChars - 3) + "...";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size() && i < kShownDims; ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  if (shape.size() > kShownDims) text += ", ... (" + std::to_string(shape.size()) + " dimensions)";
  return text + "]";
}

// One tensor as the header describes it.
struct Entry {
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

bool IsIndex(const json& v) {
  return v.is_number_unsigned() &&
         v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

// Reads the header's description of tensor `name` into `*out`, or why it is malformed.
Status ReadEntry(const std::string& name, const json& v, Entry* out) {
  const std::string what = "tensor " + name;
  if (!v.is_object()) return Status::Corruption(what + " is not described by a JSON object");
  const auto dtype = v.find("dtype");
  const auto shape = v.find("shape");
  const auto offsets = v.find("data_offsets");
  if (dtype == v.end() || !dtype->is_string()) return Status::Corruption(what + " has no dtype");
  if (shape == v.end() || !shape->is_array()) return Status::Corruption(what + " has no shape");
  if (offsets == v.end() || !offsets->is_array() || offsets->size() != 2 ||
      !IsIndex((*offsets)[0]) || !IsIndex((*offsets)[1])) {
    return Status::Corruption(what + " has no data_offsets [BEGIN, END] of two byte offsets");
  }
  out->dtype = dtype->get<std::string>();
  out->shape.clear();
  for (const json& d : *shape) {
    if (!IsIndex(d)) return Status::Corruption(what + " has a dimension that is not a size");
    out->shape.push_back(d.get<int64_t>());
  }
  out->begin = (*offsets)[0].get<uint64_t>();
  out->end = (*offsets)[1].get<uint64_t>();
  if (out->end < out->begin) {
    return Status::Corruption(what + " has data_offsets that end before they begin");
  }
  return Status::Ok();
}

// The header's tensor entries are exactly the expected ones, and its metadata is text.
Status CheckNames(const json& header, const std::vector<TensorSpec>& expected) {
  const auto metadata = header.find(kMetadataKey);
  if (metadata != header.end()) {
    const bool text =
        metadata->is_object() && std::all_of(metadata->begin(), metadata->end(),
                                             [](const json& v) { return v.is_string(); });
    if (!text) return Status::Corruption("__metadata__ is not an object of strings");
  }
  std::set<std::string> names;
  for (const TensorSpec& spec : expected) {
    if (header.find(spec.name) == header.end()) {
      return Status::Corruption("has no tensor " + spec.name);
    }
    names.insert(spec.name);
  }
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() != kMetadataKey && names.count(it.key()) == 0) {
      return Status::Corruption("has an unexpected tensor " + Shown(it.key()));
    }
  }
  return Status::Ok();
}

// The entries, in the order of `expected`, each with the expected dtype, shape and size.
Status ReadEntries(const json& header, const std::vector<TensorSpec>& expected,
                   std::vector<Entry>* entries) {
  for (const TensorSpec& spec : expected) {
    Entry e;
    PETNAME_RETURN_IF_ERROR(ReadEntry(spec.name, header.at(spec.name), &e));
    const std::string want = std::string(DtypeName(spec.dtype)) + " " + ShapeText(spec.shape);
    if (e.dtype != DtypeName(spec.dtype) || e.shape != spec.shape) {
      return Status::Corruption("tensor " + spec.name + " is " + Shown(e.dtype) + " " +
                                ShapeText(e.shape) + ", expected " + want);
    }
    if (e.end - e.begin != TensorBytes(spec)) {
      return Status::Corruption("tensor " + spec.name + " has data_offsets [" +
                                std::to_string(e.begin) + ", " + std::to_string(e.end) + "], but " +
                                want + " takes " + std::to_string(TensorBytes(spec)) + " bytes");
    }
    entries->push_back(std::move(e));
  }
  return Status::Ok();
}

// The entries tile [0, size) of the data: sorted by offset, each begins where the previous ends.
Status CheckTiling(const std::vector<Entry>& entries, const std::vector<TensorSpec>& expected,
                   uint64_t size) {
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(entries[a].begin, entries[a].end) < std::tie(entries[b].begin, entries[b].end);
  });
  uint64_t at = 0;
  for (size_t i : order) {
    if (entries[i].begin != at) {
      return Status::Corruption("tensor " + expected[i].name + " begins at byte " +
                                std::to_string(entries[i].begin) + " of the data, not at " +
                                std::to_string(at) + " (tensors must not overlap or leave gaps)");
    }
    at = entries[i].end;
  }
  if (at != size) {
    return Status::Corruption("the tensors take " + std::to_string(at) +
                              " bytes, but the data after the header has " + std::to_string(size));
  }
  return Status::Ok();
}

}  // namespace

uint64_t TensorBytes(const TensorSpec& spec) {
  uint64_t count = 1;
  for (int64_t d : spec.shape) count *= static_cast<uint64_t>(d);
  return count * DtypeSize(spec.dtype);
}

int64_t MaxFileBytes(const std::vector<TensorSpec>& expected) {
  uint64_t total = 8 + kMaxHeaderBytes;
  for (const TensorSpec& spec : expected) total += TensorBytes(spec);
  return static_cast<int64_t>(total);
}

Status ParseSafetensors(std::string_view file, const std::vector<TensorSpec>& expected,
                        std::vector<std::string_view>* data) {
  if (file.size() < 8) {
    return Status::Corruption("has " + std::to_string(file.size()) +
                              " bytes, too few for the header length");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<size_t>(i)]);
  if (n > kMaxHeaderBytes) {
    return Status::Corruption("header length " + std::to_string(n) + " is more than " +
                              std::to_string(kMaxHeaderBytes));
  }
  if (n > file.size() - 8) {
    return Status::Corruption("header length " + std::to_string(n) +
                              " runs past the end of the file (" + std::to_string(file.size()) +
                              " bytes)");
  }
  const std::string_view text = file.substr(8, static_cast<size_t>(n));
  const json header = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    return Status::Corruption("header is not a JSON object");
  }
  PETNAME_RETURN_IF_ERROR(CheckNames(header, expected));
  std::vector<Entry> entries;
  PETNAME_RETURN_IF_ERROR(ReadEntries(header, expected, &entries));
  const std::string_view body = file.substr(8 + static_cast<size_t>(n));
  PETNAME_RETURN_IF_ERROR(CheckTiling(entries, expected, body.size()));
  data->clear();
  for (const Entry& e : entries) {
    data->push_back(
        body.substr(static_cast<size_t>(e.begin), static_cast<size_t>(e.end - e.begin)));
  }
  return Status::Ok();
}

}  // namespace petname::safetensors
