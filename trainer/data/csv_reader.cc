#include "trainer/data/csv_reader.h"

namespace petname::data {

std::string_view StripBom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

CsvReader::CsvReader(std::string_view text, const CsvLimits& limits)
    : text_(StripBom(text)), limits_(limits) {}

bool CsvReader::OverLong(Status* error) const {
  if (pos_ - record_start_ <= limits_.max_bytes) return false;
  *error =
      Status::InvalidArgument("line " + std::to_string(record_line_) + ": a record of more than " +
                              std::to_string(limits_.max_bytes) + " bytes");
  return true;
}

Status CsvReader::ReadQuoted(std::string* field) {
  const size_t start_line = line_;
  ++pos_;  // the opening quote
  Status error;
  while (pos_ < text_.size()) {
    if (OverLong(&error)) return error;
    char c = text_[pos_++];
    if (c == '"') {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        field->push_back('"');
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
        return Status::Corruption("line " + std::to_string(line_) +
                                  ": unexpected character after a closing quote");
      }
      return Status::Ok();
    }
    if (c == '\n') ++line_;
    field->push_back(c);
  }
  return Status::Corruption("line " + std::to_string(start_line) +
                            ": quoted field is not terminated");
}

Status CsvReader::Next(std::vector<std::string>* fields, bool* done) {
  fields->clear();
  *done = pos_ >= text_.size();
  if (*done) return Status::Ok();
  record_line_ = line_;
  record_start_ = pos_;
  std::string field;
  Status error;
  while (true) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      PETNAME_RETURN_IF_ERROR(ReadQuoted(&field));
    }
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
           !(text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n')) {
      if (OverLong(&error)) return error;
      field.push_back(text_[pos_++]);
    }
    if (OverLong(&error)) return error;
    if (fields->size() == limits_.max_fields) {
      return Status::InvalidArgument("line " + std::to_string(record_line_) +
                                     ": a record of more than " +
                                     std::to_string(limits_.max_fields) + " fields");
    }
    fields->push_back(std::move(field));
    field.clear();
    if (pos_ >= text_.size()) return Status::Ok();
    char c = text_[pos_++];
    if (c == ',') continue;
    if (c == '\r') ++pos_;  // the '\n' of a CRLF
    ++line_;
    return Status::Ok();
  }
}

}  // namespace petname::data
