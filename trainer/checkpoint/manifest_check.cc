#include "trainer/checkpoint/manifest_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {
namespace {

using nlohmann::json;

constexpr int64_t kMaxCount = int64_t{1} << 50;  // steps and examples: far beyond any run
constexpr size_t kMaxFiles = 64;
constexpr size_t kMaxFileName = 64;
constexpr size_t kMaxFingerprint = 128;
constexpr size_t kSha256Hex = 64;

struct IntField {
  const char* path;
  int64_t min;
  int64_t max;
  bool required;
};

constexpr IntField kIntFields[] = {
    {"epoch", 0, 999999, true},
    {"step", 0, kMaxCount, true},
    {"epoch_examples", 0, kMaxCount, false},
    {"world_size", 1, 65536, false},
    {"hyper_parameters.vocab_size", 1, 256, true},
    {"hyper_parameters.hidden_size", 1, 1024, true},
    {"hyper_parameters.num_layers", 1, 16, true},
    {"hyper_parameters.window", 1, 256, true},
    {"hyper_parameters.batch_size", 1, int64_t{1} << 24, true},
};

struct RealField {
  const char* path;
  double min;
  double below;       // exclusive upper bound
  const char* range;  // [min, below) as text
};

constexpr RealField kRealFields[] = {
    {"hyper_parameters.learning_rate", 0, 10, "[0, 10)"},
    {"hyper_parameters.validation_fraction", 0, 1, "[0, 1)"},
};

constexpr const char* kMetricFields[] = {"metrics.train_loss", "metrics.val_loss",
                                         "metrics.val_accuracy"};

Status Bad(const std::string& path, const std::string& what) {
  return Status::Corruption("manifest.json: " + path + " " + what);
}

// The member at the dotted `path` of `j`, or nullptr when there is none.
const json* Find(const json& j, const std::string& path) {
  const json* at = &j;
  size_t begin = 0;
  for (;;) {
    const size_t dot = path.find('.', begin);
    if (!at->is_object()) return nullptr;
    auto it = at->find(path.substr(begin, dot - begin));
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string::npos) return at;
    begin = dot + 1;
  }
}

// A JSON rendering of `value` short enough for an error line.
std::string Shown(const json& value) {
  std::string text = value.dump();
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

Status CheckInt(const json& j, const IntField& f) {
  const json* v = Find(j, f.path);
  if (v == nullptr) return f.required ? Bad(f.path, "is missing") : Status::Ok();
  if (!v->is_number_integer()) {
    return Bad(f.path, std::string("must be an integer, not ") + v->type_name());
  }
  const bool in_range = v->is_number_unsigned()
                            ? v->get<uint64_t>() <= static_cast<uint64_t>(f.max) &&
                                  v->get<uint64_t>() >= static_cast<uint64_t>(f.min)
                            : v->get<int64_t>() >= f.min && v->get<int64_t>() <= f.max;
  if (in_range) return Status::Ok();
  return Bad(f.path, "is " + Shown(*v) + ", outside [" + std::to_string(f.min) + ", " +
                         std::to_string(f.max) + "]");
}

Status CheckReal(const json& j, const RealField& f) {
  const json* v = Find(j, f.path);
  if (v == nullptr) return Bad(f.path, "is missing");
  if (!v->is_number()) return Bad(f.path, std::string("must be a number, not ") + v->type_name());
  const double x = v->get<double>();
  if (std::isfinite(x) && x >= f.min && x < f.below) return Status::Ok();
  return Bad(f.path, "is " + Shown(*v) + ", outside " + f.range);
}

bool IsLowerHex(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A string member at `path`, or why not.
Status StringAt(const json& j, const char* path, std::string* out) {
  const json* v = Find(j, path);
  if (v == nullptr) return Bad(path, "is missing");
  if (!v->is_string()) return Bad(path, std::string("must be a string, not ") + v->type_name());
  *out = v->get<std::string>();
  return Status::Ok();
}

Status CheckStrings(const json& j) {
  std::string precision;
  PETNAME_RETURN_IF_ERROR(StringAt(j, "hyper_parameters.precision", &precision));
  if (precision != "fp32" && precision != "bf16") {
    return Bad("hyper_parameters.precision", "is " + Shown(precision) + ", not fp32 or bf16");
  }
  std::string vocabulary;
  PETNAME_RETURN_IF_ERROR(StringAt(j, "vocabulary", &vocabulary));
  const auto vocab_size = j.at("hyper_parameters").at("vocab_size").get<uint64_t>();
  if (vocabulary.size() != vocab_size) {
    return Bad("hyper_parameters.vocab_size",
               "is " + std::to_string(vocab_size) + " but the vocabulary has " +
                   std::to_string(vocabulary.size()) + " characters");
  }
  std::string fingerprint;
  PETNAME_RETURN_IF_ERROR(StringAt(j, "data_fingerprint", &fingerprint));
  if (fingerprint.size() > kMaxFingerprint || !IsLowerHex(fingerprint)) {
    return Bad("data_fingerprint", "must be at most 128 lower-case hex digits");
  }
  return Status::Ok();
}

Status CheckFiles(const json& j) {
  const json* files = Find(j, "files");
  if (files == nullptr) return Bad("files", "is missing");
  if (!files->is_object()) {
    return Bad("files", std::string("must be an object, not ") + files->type_name());
  }
  if (files->size() > kMaxFiles) {
    return Bad("files", "lists " + std::to_string(files->size()) + " files, more than " +
                            std::to_string(kMaxFiles));
  }
  for (auto it = files->begin(); it != files->end(); ++it) {
    if (!IsPlainFileName(it.key())) {
      return Bad("files", "names " + Shown(it.key()) +
                              ", not a plain file name inside the checkpoint directory");
    }
    if (!it->is_string() || it->get<std::string>().size() != kSha256Hex ||
        !IsLowerHex(it->get<std::string>())) {
      return Bad("files." + it.key(), "must be a sha256 of 64 lower-case hex digits");
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsPlainFileName(const std::string& name) {
  if (name.empty() || name.size() > kMaxFileName || name[0] == '.' || name == "manifest.json") {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

Status CheckManifestJson(const json& j) {
  PETNAME_RETURN_IF_ERROR(CheckInt(j, {"format_version", 0, 999999, true}));
  if (j.at("format_version").get<int64_t>() != kFormatVersion) return Status::Ok();
  for (const IntField& f : kIntFields) PETNAME_RETURN_IF_ERROR(CheckInt(j, f));
  const json* seed = Find(j, "hyper_parameters.seed");
  if (seed == nullptr) return Bad("hyper_parameters.seed", "is missing");
  if (!seed->is_number_unsigned()) {
    return Bad("hyper_parameters.seed", "must be a non-negative integer");
  }
  for (const RealField& f : kRealFields) PETNAME_RETURN_IF_ERROR(CheckReal(j, f));
  for (const char* path : kMetricFields) {
    const json* v = Find(j, path);
    if (v == nullptr) return Bad(path, "is missing");
    if (!v->is_number() && !v->is_null()) {
      return Bad(path, std::string("must be a number or null, not ") + v->type_name());
    }
  }
  PETNAME_RETURN_IF_ERROR(CheckStrings(j));
  const json* mac = Find(j, "mac");
  if (mac != nullptr && (!mac->is_string() || mac->get<std::string>().size() != kSha256Hex ||
                         !IsLowerHex(mac->get<std::string>()))) {
    return Bad("mac", "must be 64 lower-case hex digits");
  }
  return CheckFiles(j);
}

}  // namespace petname::checkpoint
