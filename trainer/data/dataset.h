// Turning cleaned names into training and validation examples.
//
// Encoding (the original recipe): each name followed by the stop character '+' yields one
// example per prefix. The input is the last `window` characters of the prefix, left-padded
// with '*'; the target is the input shifted by one, i.e. the window that ends with the next
// character. "spot" gives 5 rows, from "********" -> "*******s" to "****spot" -> "***spot+".
// Characters are stored as vocabulary indices, one byte each, row-major [count, window].
//
// Split: a distinct name goes to validation when a stable hash of it (the first 52 bits of
// its sha256, mapped to [0, 1)) is below `validation_fraction`; every occurrence of it goes there,
// so no prefix of a validation name is trained on.
//
// Fingerprint: sha256 over the encoding parameters and the cleaned, ordered name list. Two
// datasets with the same fingerprint encode to identical examples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace petname::data {

struct EncodeOptions {
  int window = 8;
  double validation_fraction = 0.05;
};

struct Examples {
  std::vector<uint8_t> inputs;   // [count, window]
  std::vector<uint8_t> targets;  // [count, window]
  size_t count = 0;
};

struct Dataset {
  EncodeOptions options;
  Examples train;
  Examples validation;
  size_t names = 0;
  size_t distinct_names = 0;
  size_t validation_distinct_names = 0;
  std::vector<std::string> training_names;  // distinct names of the training split, sorted
  std::string fingerprint;
};

// Appends the rows of `name` (clean, see names.h) to `out`.
void EncodeName(const std::string& name, int window, Examples* out);

// True when the distinct name `name` belongs to the validation split.
bool InValidation(const std::string& name, double validation_fraction);

std::string Fingerprint(const std::vector<std::string>& names, const EncodeOptions& options);

Dataset BuildDataset(const std::vector<std::string>& names, const EncodeOptions& options);

}  // namespace petname::data
