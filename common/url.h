// HTTP(S) URLs of data to fetch (`petname fetch`, a job's spec.dataset.url): the scheme check,
// the form that is safe to print, and the file name a URL suggests. Pure; no network.
#pragma once

#include <string>

#include "common/status.h"

namespace petname {

// The parts of an http:// or https:// URL. `authority` is host[:port] without any userinfo.
struct DownloadUrl {
  std::string scheme;     // "http" or "https", lower case
  std::string authority;  // host[:port]
  std::string path;       // from the first '/' after the authority up to '?' or '#'; "" or "/..."
};

// Parses `url` as scheme://[userinfo@]host[:port][/path][?query][#fragment]. InvalidArgument
// (whose message shows the URL redacted) when the scheme is not http or https (file://, ftp://,
// none), the host is empty, or the URL holds whitespace or control characters.
Status ParseDownloadUrl(const std::string& url, DownloadUrl* out);

// `url` as it may appear in messages and logs: scheme://host[:port]/path, without userinfo
// (user:password@), query string or fragment, where credentials and signed tokens live. A
// string that does not parse as a URL is shown as its scheme followed by "://..." (or "...").
std::string RedactUrl(const std::string& url);

// The last segment of the URL's path when it is a plain file name (letters, digits, '.', '-',
// '_', not "." or ".."), else "data".
std::string UrlFileName(const std::string& url);

}  // namespace petname
