#include "trainer/sweep/sweep_file.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "common/untrusted_file.h"

namespace petname::sweep {
namespace {

using Json = nlohmann::json;

// A plain (unquoted) scalar as YAML 1.2's core schema types it.
Json PlainScalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  char* end = nullptr;
  errno = 0;
  const long long integer = std::strtoll(text.c_str(), &end, 10);
  if (errno == 0 && *end == '\0') return static_cast<int64_t>(integer);
  errno = 0;
  const double real = std::strtod(text.c_str(), &end);
  if (errno == 0 && *end == '\0' && text.find_first_of("xXnN") == std::string::npos) return real;
  return text;
}

Json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node) object[entry.first.as<std::string>()] = ToJson(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(ToJson(item));
      return array;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!": it stays text.
      return node.Tag() == "!" ? Json(node.Scalar()) : PlainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

}  // namespace

Status ParseSweepFile(const std::string& text, const std::string& stem, SweepFile* out) {
  Json root;
  try {
    root = ToJson(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument("sweep file: YAML error at line " +
                                   std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.is_object()) return Status::InvalidArgument("sweep file: must be a YAML mapping");
  SweepFile file;
  file.name = stem;
  if (root.contains("data")) {
    if (!root["data"].is_string())
      return Status::InvalidArgument("sweep file: data must be a path");
    file.data = root["data"].get<std::string>();
    root.erase("data");
  }
  if (root.contains("spec")) {
    if (!root["spec"].is_object()) return Status::InvalidArgument("spec: must be a mapping");
    const auto metadata = root.find("metadata");
    if (metadata != root.end() && metadata->is_object()) {
      const std::string name = metadata->value("name", "");
      if (!name.empty()) file.name = name;
    }
    file.spec = root["spec"];
  } else {
    file.spec = root;
  }
  *out = std::move(file);
  return Status::Ok();
}

Status ReadSweepFile(const std::string& path, SweepFile* out) {
  std::string text;
  UntrustedFileRules rules;
  rules.max_bytes = int64_t{16} << 20;
  rules.what = "sweep file";
  Status read = ReadUntrustedFile(path, rules, &text);
  if (!read.ok()) return Status::InvalidArgument("--config: " + read.message());
  return ParseSweepFile(text, std::filesystem::path(path).stem().string(), out);
}

}  // namespace petname::sweep
