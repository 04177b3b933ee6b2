#include "trainer/metrics/metrics_log.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_util.h"
#include "common/untrusted_file.h"

namespace petname::metrics {
namespace {

using nlohmann::json;

// Reads the metrics log at `path` as untrusted input: a regular file (not a symlink) of at most
// 256 MiB, so that a FIFO or device planted in a checkpoint directory cannot hang a resume.
Status ReadLogFile(const std::string& path, std::string* out) {
  const std::filesystem::path p(path);
  UntrustedFileRules rules;
  rules.max_bytes = int64_t{256} << 20;
  rules.what = "metrics log";
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  return ReadUntrustedFileIn(dir, p.filename().string(), rules, out);
}

json Number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// Reads an optional number: a missing key or null gives NaN.
double GetNumber(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  return it->get<double>();
}

Status ParseLine(const std::string& line, EpochRecord* out) {
  const json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) return Status::Corruption("not a JSON object");
  try {
    EpochRecord record;
    record.epoch = object.at("epoch").get<int>();
    record.train_loss = GetNumber(object, "train_loss");
    record.validation_loss = GetNumber(object, "validation_loss");
    record.validation_accuracy = GetNumber(object, "validation_accuracy");
    record.elapsed_seconds = object.at("elapsed_seconds").get<double>();
    record.timestamp = GetNumber(object, "timestamp");
    record.samples = object.value("samples", int64_t{0});
    record.samples_per_second = GetNumber(object, "samples_per_second");
    record.learning_rate = GetNumber(object, "learning_rate");
    record.world_size = object.value("world_size", 1);
    record.restarts = object.value("restarts", 0);
    *out = record;
  } catch (const json::exception& e) {
    return Status::Corruption(e.what());
  }
  return Status::Ok();
}

}  // namespace

std::string ToJsonLine(const EpochRecord& record) {
  json object = json::object();
  object["epoch"] = record.epoch;
  object["train_loss"] = Number(record.train_loss);
  object["validation_loss"] = Number(record.validation_loss);
  object["validation_accuracy"] = Number(record.validation_accuracy);
  object["elapsed_seconds"] = Number(record.elapsed_seconds);
  object["timestamp"] = Number(record.timestamp);
  object["samples"] = record.samples;
  object["samples_per_second"] = Number(record.samples_per_second);
  object["learning_rate"] = Number(record.learning_rate);
  object["world_size"] = record.world_size;
  object["restarts"] = record.restarts;
  return object.dump();
}

Status ParseMetricsLog(const std::string& text, std::vector<EpochRecord>* out) {
  std::vector<EpochRecord> records;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    EpochRecord record;
    Status status = ParseLine(line, &record);
    if (!status.ok()) {
      return Status::Corruption("line " + std::to_string(number) + ": " + status.message());
    }
    records.push_back(record);
  }
  *out = std::move(records);
  return Status::Ok();
}

Status AppendEpochRecord(const std::string& path, const EpochRecord& record) {
  std::string contents;
  if (std::filesystem::exists(path)) PETNAME_RETURN_IF_ERROR(ReadLogFile(path, &contents));
  if (!contents.empty() && contents.back() != '\n') contents += '\n';
  contents += ToJsonLine(record) + "\n";
  return WriteFileAtomically(path, contents);
}

Status ReadMetricsLog(const std::string& path, std::vector<EpochRecord>* out) {
  if (!std::filesystem::exists(path)) return Status::NotFound(path + " does not exist");
  std::string text;
  PETNAME_RETURN_IF_ERROR(ReadLogFile(path, &text));
  Status status = ParseMetricsLog(text, out);
  if (!status.ok()) return Status::Corruption(path + " " + status.message());
  return status;
}

Status CarryOverOnResume(const std::string& path, int resumed_epoch, CarriedOver* out) {
  *out = CarriedOver{0, 1};
  if (!std::filesystem::exists(path)) return Status::Ok();
  std::vector<EpochRecord> records;
  PETNAME_RETURN_IF_ERROR(ReadMetricsLog(path, &records));
  for (const EpochRecord& record : records) {
    if (record.epoch <= resumed_epoch)
      *out = CarriedOver{record.elapsed_seconds, record.restarts + 1};
  }
  return Status::Ok();
}

}  // namespace petname::metrics
