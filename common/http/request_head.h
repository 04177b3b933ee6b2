// Pure decisions on an HTTP/1.1 request head as a client sent it: the request line, the header
// lines, the blank line that ends them, and whatever bytes came after it. Lines end with "\n"
// (normally "\r\n"). No I/O.
#pragma once

#include <string>

namespace petname {

// `head` without its Range and If-Range header lines, so that a server answers the whole body
// (200) and never parses a byte range: the header name (before the first ':', trailing spaces
// and tabs ignored) is compared case-insensitively, and the obs-fold lines that continue a
// dropped header (lines starting with a space or a tab) go with it. The request line, other
// headers (whatever their values contain), the blank line and the bytes after it are kept as
// they are; so is a head cut off before its blank line.
std::string WithoutRangeHeaders(const std::string& head);

// The path of the request line's target, as sent (not percent-decoded), without a query string
// or fragment: "/healthz" for "GET /healthz?verbose HTTP/1.1". Empty when the head holds no
// complete request line or its target is not a path (absolute form, "*").
std::string RequestPath(const std::string& head);

}  // namespace petname
