#include "common/http/request_head.h"

#include <cctype>
#include <cstring>
#include <vector>

namespace petname {
namespace {

constexpr size_t kNone = std::string_view::npos;

// The offset of the first line end in `text` that is not CRLF: a LF without a CR before it, or
// a CR followed by another byte than LF (a CR that is the last byte may still be one); kNone
// when there is none.
size_t FirstBareLineEnd(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) return i;
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] != '\n') return i;
  }
  return kNone;
}

bool IsTokenChar(unsigned char c) {
  return std::isalnum(c) != 0 || (c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!IsTokenChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A field value's bytes: visible ASCII, space, tab and obs-text; no other control character.
bool IsFieldValue(std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return false;
  }
  return true;
}

// A request target's bytes: visible ASCII, nothing else.
bool IsTarget(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return false;
  }
  return true;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view WithoutSpaceOrTab(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "METHOD SP TARGET SP VERSION", with HTTP/1.1 or HTTP/1.0.
bool IsRequestLine(std::string_view line, std::string_view* method) {
  const size_t first = line.find(' ');
  if (first == kNone) return false;
  const size_t second = line.find(' ', first + 1);
  if (second == kNone) return false;
  *method = line.substr(0, first);
  const std::string_view version = line.substr(second + 1);
  return IsToken(*method) && IsTarget(line.substr(first + 1, second - first - 1)) &&
         (version == "HTTP/1.1" || version == "HTTP/1.0");
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= text.size();) {
    const size_t end = text.find("\r\n", pos);
    lines.push_back(text.substr(pos, end == kNone ? kNone : end - pos));
    if (end == kNone) break;
    pos = end + 2;
  }
  return lines;
}

HeadVerdict Refusal(int status, std::string reason, bool head) {
  HeadVerdict v;
  v.status = status;
  v.reason = std::move(reason);
  v.head = head;
  return v;
}

}  // namespace

size_t RequestHeadLength(std::string_view received) {
  const size_t end = received.find("\r\n\r\n");
  const std::string_view head = received.substr(0, end == kNone ? kNone : end + 4);
  if (FirstBareLineEnd(head) != kNone) return received.size();
  return end == kNone ? 0 : end + 4;
}

HeadVerdict ScreenRequestHead(std::string_view head, size_t max_bytes, size_t max_headers) {
  const bool is_head = head.substr(0, 5) == "HEAD ";
  if (FirstBareLineEnd(head) != kNone) {
    return Refusal(400, "a line of the request head does not end in CRLF", is_head);
  }
  if (head.size() > max_bytes) {
    return Refusal(400, "request head over " + std::to_string(max_bytes) + " bytes", is_head);
  }
  if (head.size() < 4 || head.substr(head.size() - 4) != "\r\n\r\n") {
    return Refusal(400, "request head without its empty line", is_head);
  }
  const std::vector<std::string_view> lines = Lines(head.substr(0, head.size() - 4));
  std::string_view method;
  if (!IsRequestLine(lines[0], &method)) return Refusal(400, "malformed request line", is_head);
  bool body = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t colon = line.find(':');
    if (colon == kNone || !IsToken(line.substr(0, colon))) {
      return Refusal(400, "a header line is not NAME: VALUE (folded, or a space before ':')",
                     is_head);
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = WithoutSpaceOrTab(line.substr(colon + 1));
    if (!IsFieldValue(value)) {
      return Refusal(400, "a header value holds a control character", is_head);
    }
    body = body || EqualsIgnoringCase(name, "Transfer-Encoding") ||
           (EqualsIgnoringCase(name, "Content-Length") && value != "0");
  }
  if (lines.size() - 1 > max_headers) return Refusal(431, "too many request headers", is_head);
  if (method != "GET" && method != "HEAD") return Refusal(405, "method not allowed", is_head);
  if (body) return Refusal(413, "a request body is not accepted", is_head);
  HeadVerdict accepted;
  accepted.head = is_head;
  accepted.forwarded = std::string(lines[0]) + "\r\n\r\n";
  return accepted;
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
