#include "trainer/export/recipe_format.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace petname::exporter {
namespace {

std::string Number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return nlohmann::json(value).dump();
}

}  // namespace

bool RecipeTensorName(const std::string& name, std::string* out) {
  static const std::string kLstm = "lstm.";
  if (name.rfind(kLstm, 0) == 0 && name.size() > kLstm.size()) {
    *out = name;
    return true;
  }
  if (name == "head.weight" || name == "head.bias") {
    *out = "fc." + name.substr(std::string("head.").size());
    return true;
  }
  return false;
}

std::map<std::string, std::string> RecipeMetadata(const checkpoint::Manifest& m) {
  const checkpoint::HyperParameters& h = m.hyper;
  const std::string& v = m.vocabulary;
  return {{"format", "petname-recipe-lstm-v1"},
          {"vocabulary", v},
          {"pad", v.substr(0, 1)},
          {"stop", v.size() > 1 ? v.substr(1, 1) : ""},
          {"window", std::to_string(h.window)},
          {"input", "one_hot"},
          {"vocab_size", std::to_string(h.vocab_size)},
          {"hidden_size", std::to_string(h.hidden_size)},
          {"num_layers", std::to_string(h.num_layers)},
          {"epochs", std::to_string(m.epoch)},
          {"steps", std::to_string(m.step)},
          {"seed", std::to_string(h.seed)},
          {"batch_size", std::to_string(h.batch_size)},
          {"world_size", std::to_string(m.world_size)},
          {"learning_rate", Number(h.learning_rate)},
          {"precision", h.precision},
          {"validation_fraction", Number(h.validation_fraction)},
          {"train_loss", Number(m.metrics.train_loss)},
          {"val_loss", Number(m.metrics.val_loss)},
          {"val_accuracy", Number(m.metrics.val_accuracy)},
          {"data_fingerprint_sha256", m.data_fingerprint},
          {"settings_sha256", m.settings_sha256}};
}

}  // namespace petname::exporter
