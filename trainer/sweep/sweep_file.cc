#include "trainer/sweep/sweep_file.h"

#include <filesystem>

#include "common/untrusted_file.h"
#include "trainer/sweep/yaml_json.h"

namespace petname::sweep {

Status ParseSweepFile(const std::string& text, const std::string& stem, SweepFile* out) {
  nlohmann::json root;
  Status parsed = YamlToJson(text, kYamlAliasBudget, &root);
  if (!parsed.ok()) return Status::InvalidArgument("sweep file: " + parsed.message());
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
