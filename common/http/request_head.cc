#include "common/http/request_head.h"

#include <cctype>
#include <cstddef>

namespace petname {
namespace {

bool IsRangeHeader(const std::string& line) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return false;
  size_t end = colon;
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  const std::string name = line.substr(0, end);
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "range" || lower == "if-range";
}

bool IsBlank(const std::string& line) { return line == "\n" || line == "\r\n"; }

}  // namespace

std::string WithoutRangeHeaders(const std::string& head) {
  std::string kept;
  kept.reserve(head.size());
  size_t pos = 0;
  bool first = true;      // the request line
  bool dropping = false;  // within a dropped header and its continuation lines
  while (pos < head.size()) {
    const size_t newline = head.find('\n', pos);
    const size_t end = newline == std::string::npos ? head.size() : newline + 1;
    const std::string line = head.substr(pos, end - pos);
    pos = end;
    if (!first && IsBlank(line)) {
      kept += line;
      kept.append(head, pos, std::string::npos);
      break;
    }
    const bool continuation = !first && (line[0] == ' ' || line[0] == '\t');
    if (!first && !continuation) dropping = IsRangeHeader(line);
    first = false;
    if (!dropping) kept += line;
  }
  return kept;
}

std::string RequestPath(const std::string& head) {
  const size_t line_end = head.find('\n');
  if (line_end == std::string::npos) return "";
  const size_t start = head.find(' ');
  if (start == std::string::npos || start > line_end) return "";
  const size_t target_end = head.find(' ', start + 1);
  if (target_end == std::string::npos || target_end > line_end) return "";
  const std::string target = head.substr(start + 1, target_end - start - 1);
  if (target.empty() || target[0] != '/') return "";
  return target.substr(0, target.find_first_of("?#"));
}

}  // namespace petname
