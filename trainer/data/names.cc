#include "trainer/data/names.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "trainer/data/csv_reader.h"
#include "trainer/data/vocabulary.h"

namespace petname::data {
namespace {

std::string LowerExtension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// True when `path` ends in ".csv", or in ".csv.gz" for a gzip-compressed file.
bool EndsWithCsv(const std::string& path, bool gzipped) {
  std::filesystem::path p(path);
  if (gzipped && LowerExtension(p) == ".gz") p = p.stem();
  return LowerExtension(p) == ".csv";
}

bool FirstLineHasColumn(std::string_view text, const std::string& column) {
  std::vector<std::string> header;
  bool done = false;
  CsvReader reader(text.substr(0, text.find('\n')));
  if (!reader.Next(&header, &done).ok()) return false;
  return std::find(header.begin(), header.end(), column) != header.end();
}

// Adds one raw name to `out`; returns false once `max_names` usable names are kept.
bool Add(const std::string& raw, size_t max_names, NameList* out) {
  std::string clean;
  bool empty = false;
  if (CleanName(raw, &clean, &empty)) {
    out->names.push_back(std::move(clean));
  } else if (empty) {
    ++out->dropped_empty;
  } else {
    ++out->dropped_bad_chars;
  }
  return max_names == 0 || out->names.size() < max_names;
}

// The reader's error `st` about the file at `path`: a record over the reader's bounds stays a
// usage error (InvalidArgument), a damaged one is Corruption.
Status InFile(const std::string& path, const Status& st) {
  const std::string message = "data file " + path + ": " + st.message();
  if (st.code() == Status::Code::kInvalidArgument) return Status::InvalidArgument(message);
  return Status::Corruption(message);
}

Status ReadCsv(std::string_view text, const NameSourceOptions& options, NameList* out) {
  const std::string column = options.column.empty() ? kDefaultColumn : options.column;
  CsvReader reader(text);
  std::vector<std::string> fields;
  bool done = false;
  Status st = reader.Next(&fields, &done);
  if (!st.ok()) return InFile(options.path, st);
  auto it = std::find(fields.begin(), fields.end(), column);
  if (it == fields.end()) {
    return Status::InvalidArgument(options.path + ": no column named \"" + column +
                                   "\" in the CSV header");
  }
  const size_t index = static_cast<size_t>(it - fields.begin());
  while (true) {
    st = reader.Next(&fields, &done);
    if (!st.ok()) return InFile(options.path, st);
    if (done) return Status::Ok();
    ++out->records;
    if (index >= fields.size()) {
      ++out->dropped_short_row;
      continue;
    }
    if (!Add(fields[index], options.max_names, out)) return Status::Ok();
  }
}

void ReadLines(std::string_view text, const NameSourceOptions& options, NameList* out) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++out->records;
    if (!Add(std::string(line), options.max_names, out)) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

bool CleanName(const std::string& raw, std::string* clean, bool* empty) {
  size_t begin = raw.find_first_not_of(" \t");
  size_t end = raw.find_last_not_of(" \t");
  *empty = begin == std::string::npos;
  if (*empty) return false;
  clean->assign(raw, begin, end - begin + 1);
  for (char& c : *clean) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return IsCleanName(*clean);
}

Status LoadNames(const NameSourceOptions& options, NameList* out) {
  *out = NameList();
  DataFileContents contents;
  PETNAME_RETURN_IF_ERROR(ReadDataFile(options.path, options.max_bytes, &contents));
  std::string_view text = StripBom(contents.text);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::InvalidArgument("data file " + options.path + " is empty");
  }
  out->csv = EndsWithCsv(options.path, contents.gzipped) || !options.column.empty() ||
             FirstLineHasColumn(text, kDefaultColumn);
  if (out->csv) {
    PETNAME_RETURN_IF_ERROR(ReadCsv(text, options, out));
  } else {
    ReadLines(text, options, out);
  }
  if (out->names.empty()) {
    return Status::InvalidArgument(
        "data file " + options.path + " has no usable names (" + std::to_string(out->records) +
        " records, " + std::to_string(out->dropped_empty) + " empty, " +
        std::to_string(out->dropped_bad_chars) + " with characters outside the vocabulary)");
  }
  return Status::Ok();
}

}  // namespace petname::data
