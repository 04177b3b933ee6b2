// Reading pet names from a file and cleaning them.
//
// The file may be gzip-compressed (data_file.h): it is then read as its decompressed contents,
// and a name ending in ".csv.gz" counts as ending in ".csv".
//
// Format detection: the file is read as CSV when its name ends in ".csv" (any case), when
// a column was asked for explicitly, or when its first line has a field equal to
// kDefaultColumn ("Animal's Name"). Otherwise it is a plain text file with one name per
// line (LF or CRLF, optional UTF-8 byte-order mark). In CSV the first record is the header
// and the name column is found by its exact header text.
//
// Cleaning: trim spaces and tabs, lower-case ASCII letters, drop empty names and names
// with characters outside the vocabulary's name characters (a-z - . space). Each drop is
// counted by reason. `max_names` > 0 keeps only the first that many usable names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/data/data_file.h"

namespace petname::data {

inline constexpr const char* kDefaultColumn = "Animal's Name";

struct NameSourceOptions {
  std::string path;
  std::string column;  // empty: kDefaultColumn
  size_t max_names = 0;
  int64_t max_bytes = kDefaultMaxDataBytes;  // a larger file is refused (data_file.h)
};

struct NameList {
  std::vector<std::string> names;  // cleaned, in file order
  size_t records = 0;              // data rows (CSV) or lines (text) read
  size_t dropped_empty = 0;
  size_t dropped_bad_chars = 0;  // characters outside the vocabulary
  size_t dropped_short_row = 0;  // CSV rows without the name column
  bool csv = false;
};

// Trims and lower-cases `raw`; returns false (with `*clean` unspecified) when the result
// is empty or has a character outside the vocabulary, setting `*empty` accordingly.
bool CleanName(const std::string& raw, std::string* clean, bool* empty);

// Reads and cleans the names in `options.path` (ReadDataFile). Fails with NotFound/IoError
// when the file cannot be read, InvalidArgument when it is not a regular file of at most
// `max_bytes` (compressed or not), is empty, has no such column or no usable names, and
// Corruption when the CSV is malformed or the gzip stream damaged.
Status LoadNames(const NameSourceOptions& options, NameList* out);

}  // namespace petname::data
