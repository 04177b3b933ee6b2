#include "trainer/data/dataset.h"

#include <set>

#include "common/sha256.h"
#include "trainer/data/vocabulary.h"

namespace petname::data {
void EncodeName(const std::string& name, int window, Examples* out) {
  const std::string text = std::string(static_cast<size_t>(window), kPadChar) + name + kStopChar;
  const size_t w = static_cast<size_t>(window);
  for (size_t end = w; end < text.size(); ++end) {
    for (size_t i = 0; i < w; ++i) {
      out->inputs.push_back(static_cast<uint8_t>(CharIndex(text[end - w + i])));
      out->targets.push_back(static_cast<uint8_t>(CharIndex(text[end - w + i + 1])));
    }
    ++out->count;
  }
}

bool InValidation(const std::string& name, double validation_fraction) {
  // The first 52 bits of sha256(name), as a fraction of 2^52.
  double u =
      static_cast<double>(std::stoull(Sha256Hex(name).substr(0, 13), nullptr, 16)) * 0x1.0p-52;
  return u < validation_fraction;
}

std::string Fingerprint(const std::vector<std::string>& names, const EncodeOptions& options) {
  Sha256 h;
  h.Update("petname-dataset-v1\nvocabulary=");
  h.Update(kVocabulary);
  h.Update("\nwindow=" + std::to_string(options.window));
  h.Update("\nvalidation_fraction=" + std::to_string(options.validation_fraction));
  h.Update("\nsplit=sha256\n");
  for (const std::string& name : names) {
    h.Update(name);
    h.Update("\n");
  }
  return h.HexDigest();
}

Dataset BuildDataset(const std::vector<std::string>& names, const EncodeOptions& options) {
  Dataset d;
  d.options = options;
  d.names = names.size();
  std::set<std::string> train_names;
  std::set<std::string> validation_names;
  for (const std::string& name : names) {
    if (InValidation(name, options.validation_fraction)) {
      validation_names.insert(name);
      EncodeName(name, options.window, &d.validation);
    } else {
      train_names.insert(name);
      EncodeName(name, options.window, &d.train);
    }
  }
  d.distinct_names = train_names.size() + validation_names.size();
  d.validation_distinct_names = validation_names.size();
  d.training_names.assign(train_names.begin(), train_names.end());
  d.fingerprint = Fingerprint(names, options);
  return d;
}

}  // namespace petname::data
