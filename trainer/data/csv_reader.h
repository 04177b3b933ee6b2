// An RFC 4180 CSV reader over an in-memory text.
//
// Handles quoted fields, doubled quotes ("") inside quoted fields, commas and newlines
// inside quotes, LF or CRLF record ends, and a leading UTF-8 byte-order mark. A quote
// inside an unquoted field is kept literally. A quoted field that never closes, or a
// closing quote followed by anything but a comma or a record end, is Corruption naming
// the 1-based line where the problem starts.
//
// A record holds at most `max_fields` fields and `max_bytes` bytes (as written, quotes and
// separators included); a longer one is InvalidArgument naming its line, found before more
// than that is kept: a file of commas cannot make the reader hold a field per byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace petname::data {

// Far beyond a table of pet names (the Seattle table's records: 7 fields, 159 bytes at most).
struct CsvLimits {
  size_t max_fields = 1024;
  size_t max_bytes = size_t{1} << 20;
};

class CsvReader {
 public:
  // `text` must outlive the reader.
  explicit CsvReader(std::string_view text, const CsvLimits& limits = {});

  // Reads the next record into `*fields`. Sets `*done` (and leaves `*fields` empty) once
  // the text is exhausted. A final record end is optional.
  Status Next(std::vector<std::string>* fields, bool* done);

  // 1-based line number of the start of the record last returned.
  size_t record_line() const { return record_line_; }

 private:
  Status ReadQuoted(std::string* field);
  // True once the record has taken more than max_bytes; *error says so.
  bool OverLong(Status* error) const;

  std::string_view text_;
  const CsvLimits limits_;
  size_t record_start_ = 0;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t record_line_ = 0;
};

// Strips a leading UTF-8 byte-order mark, if any.
std::string_view StripBom(std::string_view text);

}  // namespace petname::data
