#include "trainer/data/data_check.h"

#include <iomanip>
#include <sstream>

namespace petname::data {
namespace {

std::string Str(size_t n) { return std::to_string(n); }

// `x` as a person wrote it ("0.05", not "0.050000").
std::string Str(double x) {
  std::ostringstream out;
  out << std::setprecision(15) << x;
  return out.str();
}

Status CheckUsableShare(const std::string& path, const NameList& names) {
  const size_t non_empty = names.records - names.dropped_empty;
  const size_t usable = names.names.size();
  if (non_empty < kMinNonEmptyToJudge ||
      static_cast<double>(usable) >= kMinUsableShare * static_cast<double>(non_empty)) {
    return Status::Ok();
  }
  return Status::InvalidArgument(
      "data file " + path + ": only " + Str(usable) + " of " + Str(non_empty) +
      " non-empty records give a usable name (" + Str(names.dropped_bad_chars) +
      " have characters outside a-z - . and space, " + Str(names.dropped_short_row) +
      " are short rows); at least half must: --data must be a CSV with a name column or a text "
      "file of one name per line (plain or gzip, not zip, xz or bzip2), and --column must name "
      "the names' column");
}

}  // namespace

std::string DataSummary(const NameList& names, const Dataset& dataset) {
  return "data: " + Str(names.names.size()) + " usable names (" + Str(dataset.distinct_names) +
         " distinct) of " + Str(names.records) + " records; dropped " + Str(names.dropped_empty) +
         " empty, " + Str(names.dropped_bad_chars) + " with characters outside the vocabulary, " +
         Str(names.dropped_short_row) + " short rows; " + Str(dataset.train.count) +
         " training and " + Str(dataset.validation.count) + " validation examples (" +
         Str(dataset.validation_distinct_names) + " names held out)";
}

Status CheckTrainable(const std::string& path, const NameList& names, const Dataset& dataset) {
  PETNAME_RETURN_IF_ERROR(CheckUsableShare(path, names));
  const std::string fraction = Str(dataset.options.validation_fraction);
  if (dataset.train.count == 0) {
    return Status::InvalidArgument(
        "no training examples left after the validation split: --validation-fraction " + fraction +
        " holds out all " + Str(dataset.distinct_names) +
        " distinct names; lower it or use more names");
  }
  if (dataset.options.validation_fraction > 0 && dataset.validation.count == 0) {
    return Status::InvalidArgument(
        "data file " + path + ": no validation examples: none of its " +
        Str(dataset.distinct_names) + " distinct names falls in the --validation-fraction " +
        fraction + " hold-out; use more names (a file with more, or a larger --max-names), " +
        "a larger --validation-fraction, or --validation-fraction 0 to train without validation");
  }
  return Status::Ok();
}

}  // namespace petname::data
