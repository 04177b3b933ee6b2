// BoundedGet: one HTTP/1.1 GET from a server the caller does not trust (a user's pod), bounded
// as a whole: connecting, sending and reading all end `timeout` after the call starts, however
// the server trickles its bytes, and the answer is read up to `max_body_bytes` of body (as sent;
// chunk framing included, nothing decompressed) after at most 8 KiB of status line and headers.
// cpp-httplib's client parses the answer (Content-Length, chunked, or until the server closes);
// it runs over a BoundedStream.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/status.h"

namespace petname {

struct GetLimits {
  std::chrono::milliseconds timeout{5000};
  size_t max_body_bytes = 1 << 20;
};

// "http://HOST:PORT/PATH" with HOST an IPv4 or a bracketed IPv6 address (no name is looked up:
// a lookup could not be bounded by the timeout).
struct HttpUrl {
  std::string host;  // without brackets
  int port = 0;
  std::string path;  // from the first '/', "/" when absent
};

// Parses `url`; InvalidArgument naming it when it is not of that form. Pure.
Status ParseHttpUrl(const std::string& url, HttpUrl* out);

struct GetResult {
  int status = 0;         // the HTTP status, 0 when none was read
  std::string body;       // the body as read
  size_t bytes_read = 0;  // status line, headers and body, as received; also on failure
};

// GETs `url`. Ok with *out filled for any HTTP status; InvalidArgument for a malformed url;
// Unavailable, with *out->bytes_read, naming what stopped it: no connection, the timeout, an
// answer over the limits, or a malformed or cut answer.
Status BoundedGet(const std::string& url, const GetLimits& limits, GetResult* out);

}  // namespace petname
