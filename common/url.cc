#include "common/url.h"

#include <algorithm>
#include <cctype>

namespace petname {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool HasControlOrSpace(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; });
}

// Splits without judging the scheme: false when there is no "scheme://".
bool Split(const std::string& url, DownloadUrl* out) {
  const size_t colon = url.find("://");
  if (colon == std::string::npos || colon == 0) return false;
  out->scheme = Lower(url.substr(0, colon));
  // Userinfo ends at the last '@' before the path, even when it holds an unencoded '?' or '#'
  // (so that no part of a password is ever taken for the host).
  size_t start = colon + 3;
  const size_t slash = url.find('/', start);
  const size_t at =
      url.substr(start, slash == std::string::npos ? slash : slash - start).rfind('@');
  if (at != std::string::npos) start += at + 1;
  const size_t end = url.find_first_of("/?#", start);
  out->authority = url.substr(start, end == std::string::npos ? end : end - start);
  out->path.clear();
  if (end != std::string::npos && url[end] == '/') {
    const size_t path_end = url.find_first_of("?#", end);
    out->path = url.substr(end, path_end == std::string::npos ? path_end : path_end - end);
  }
  return true;
}

}  // namespace

Status ParseDownloadUrl(const std::string& url, DownloadUrl* out) {
  DownloadUrl parts;
  if (!Split(url, &parts) || (parts.scheme != "http" && parts.scheme != "https")) {
    return Status::InvalidArgument("the URL must start with http:// or https:// (got " +
                                   RedactUrl(url) + ")");
  }
  if (HasControlOrSpace(url)) {
    return Status::InvalidArgument("the URL must not contain spaces or control characters (got " +
                                   RedactUrl(url) + ")");
  }
  const std::string& a = parts.authority;
  if (a.empty() || a[0] == ':') {
    return Status::InvalidArgument("the URL has no host (got " + RedactUrl(url) + ")");
  }
  *out = parts;
  return Status::Ok();
}

std::string RedactUrl(const std::string& url) {
  DownloadUrl parts;
  if (!Split(url, &parts)) return "...";
  std::string shown = parts.scheme + "://" + parts.authority + parts.path;
  if (HasControlOrSpace(shown)) return parts.scheme + "://...";
  return shown;
}

std::string UrlFileName(const std::string& url) {
  DownloadUrl parts;
  if (!Split(url, &parts)) return "data";
  const std::string name = parts.path.substr(parts.path.rfind('/') + 1);
  const bool plain = !name.empty() && name != "." && name != ".." &&
                     std::all_of(name.begin(), name.end(), [](unsigned char c) {
                       return std::isalnum(c) || c == '.' || c == '-' || c == '_';
                     });
  return plain ? name : "data";
}

}  // namespace petname
