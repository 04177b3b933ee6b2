#include "trainer/checkpoint/manifest.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "trainer/checkpoint/manifest_check.h"
#include "trainer/checkpoint/manifest_mac.h"

namespace petname::checkpoint {

using nlohmann::json;

namespace {

// A metric; NaN (an epoch without validation examples) is written as null.
double Metric(const json& metrics, const char* name) {
  const json& v = metrics.at(name);
  return v.is_null() ? NAN : v.get<double>();
}

// The owner fields (checkpoint/owner.h); written only when recorded, so a manifest of a run
// without an owner reads as before.
void OwnerToJson(const Manifest& m, json* j) {
  if (m.owner.id.empty()) return;
  (*j)["owner"] = {{"id", m.owner.id}, {"uid", m.owner.uid}};
  (*j)["settings"] = m.settings;
  (*j)["settings_sha256"] = m.settings_sha256;
}

// Throws json::exception (reported as Corruption) on fields of the wrong type.
void OwnerFromJson(const json& j, Manifest* m) {
  if (!j.contains("owner")) return;
  const json& owner = j.at("owner");
  m->owner.id = owner.at("id").get<std::string>();
  m->owner.uid = owner.value("uid", std::string());
  m->settings = j.at("settings").get<Fingerprint>();
  m->settings_sha256 = j.at("settings_sha256").get<std::string>();
}

// Why a manifest of format `version` is not read.
Status OtherVersion(int version) {
  std::string why = "checkpoint format version " + std::to_string(version) +
                    " is not supported (this petname reads version " +
                    std::to_string(kFormatVersion) + ")";
  if (version == 1) {
    why +=
        "; its TorchScript tensor files run code when loaded: convert them once with "
        "`petname convert-checkpoints --checkpoint-dir DIR` if nobody else could have "
        "written them, or move them away";
  }
  return Status::FailedPrecondition(why);
}

}  // namespace

std::string ManifestToJson(const Manifest& m, const std::string& key) {
  json j;
  j["format_version"] = m.format_version;
  j["epoch"] = m.epoch;
  j["step"] = m.step;
  j["epoch_examples"] = m.epoch_examples;
  j["world_size"] = m.world_size;
  j["hyper_parameters"] = {{"vocab_size", m.hyper.vocab_size},
                           {"hidden_size", m.hyper.hidden_size},
                           {"num_layers", m.hyper.num_layers},
                           {"window", m.hyper.window},
                           {"batch_size", m.hyper.batch_size},
                           {"learning_rate", m.hyper.learning_rate},
                           {"seed", m.hyper.seed},
                           {"precision", m.hyper.precision},
                           {"validation_fraction", m.hyper.validation_fraction}};
  j["vocabulary"] = m.vocabulary;
  j["data_fingerprint"] = m.data_fingerprint;
  j["metrics"] = {{"train_loss", m.metrics.train_loss},
                  {"val_loss", m.metrics.val_loss},
                  {"val_accuracy", m.metrics.val_accuracy}};
  j["files"] = m.files;
  OwnerToJson(m, &j);
  if (!key.empty()) j["mac"] = ManifestMac(j, key);
  return j.dump(2) + "\n";
}

Status ParseManifest(const std::string& text, const std::string& key, Manifest* out) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("manifest.json is not valid JSON");
  }
  try {
    PETNAME_RETURN_IF_ERROR(CheckManifestMac(j, key));
    PETNAME_RETURN_IF_ERROR(CheckManifestJson(j));
    Manifest m;
    m.format_version = j.at("format_version").get<int>();
    if (m.format_version != kFormatVersion) return OtherVersion(m.format_version);
    m.epoch = j.at("epoch").get<int64_t>();
    m.step = j.at("step").get<int64_t>();
    m.epoch_examples = j.value("epoch_examples", int64_t{0});
    m.world_size = j.value("world_size", int64_t{1});
    const json& h = j.at("hyper_parameters");
    m.hyper.vocab_size = h.at("vocab_size").get<int64_t>();
    m.hyper.hidden_size = h.at("hidden_size").get<int64_t>();
    m.hyper.num_layers = h.at("num_layers").get<int64_t>();
    m.hyper.window = h.at("window").get<int64_t>();
    m.hyper.batch_size = h.at("batch_size").get<int64_t>();
    m.hyper.learning_rate = h.at("learning_rate").get<double>();
    m.hyper.seed = h.at("seed").get<uint64_t>();
    m.hyper.precision = h.at("precision").get<std::string>();
    m.hyper.validation_fraction = h.at("validation_fraction").get<double>();
    m.vocabulary = j.at("vocabulary").get<std::string>();
    m.data_fingerprint = j.at("data_fingerprint").get<std::string>();
    const json& metrics = j.at("metrics");
    m.metrics.train_loss = Metric(metrics, "train_loss");
    m.metrics.val_loss = Metric(metrics, "val_loss");
    m.metrics.val_accuracy = Metric(metrics, "val_accuracy");
    m.files = j.at("files").get<std::map<std::string, std::string>>();
    OwnerFromJson(j, &m);
    m.is_signed = j.contains("mac");
    *out = std::move(m);
  } catch (const json::exception& e) {
    return Status::Corruption(std::string("manifest.json is incomplete: ") + e.what());
  }
  return Status::Ok();
}

Status CheckResumable(const Manifest& have, const Manifest& want, bool force) {
  if (have.vocabulary != want.vocabulary || have.hyper.vocab_size != want.hyper.vocab_size ||
      have.hyper.hidden_size != want.hyper.hidden_size ||
      have.hyper.num_layers != want.hyper.num_layers) {
    return Status::FailedPrecondition(
        "checkpoint has a different model shape (vocabulary/hidden size/layers); it cannot be "
        "resumed");
  }
  if (force) return Status::Ok();
  if (have.data_fingerprint != want.data_fingerprint || have.hyper.window != want.hyper.window ||
      have.hyper.validation_fraction != want.hyper.validation_fraction) {
    return Status::FailedPrecondition("checkpoint was trained on different data (fingerprint " +
                                      have.data_fingerprint.substr(0, 12) + " vs " +
                                      want.data_fingerprint.substr(0, 12) +
                                      "); use --force-resume to continue anyway");
  }
  return Status::Ok();
}

}  // namespace petname::checkpoint
