// Pure decisions on an HTTP/1.1 request head as a client sent it, made before cpp-httplib reads
// any of it. No I/O.
//
// The head is held to RFC 9112's grammar, strictly: every line ends in CRLF (a bare LF or a bare
// CR anywhere is refused, never taken as a line end), a field line is `name: value` with a
// token for its name and no space before the colon, no line folding (obs-fold), no control
// character but a tab in a value. cpp-httplib then reads only the request line the screen
// rebuilds: no header of the client's reaches it, so it never serves byte ranges (Range,
// If-Range), never compresses an answer (Accept-Encoding: cpp-httplib compresses with brotli at
// quality 11 or gzip at zlib's default level, each many times the CPU of sending a body of a
// few KB as it is), never answers `Expect: 100-continue`, and every answer holds its body once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace petname {

// How many leading bytes of `received` (what a client has sent so far) make its request head:
// up to and including the empty line that ends it ("\r\n\r\n"); all of `received` once it holds
// a line end that is not CRLF (a bare LF, or a CR followed by another byte), which no later byte
// can make acceptable; 0 while more is needed.
size_t RequestHeadLength(std::string_view received);

// What a server does with a request head.
struct HeadVerdict {
  // 0: answer it; otherwise the status of the refusal: 400 (malformed, or over `max_bytes`),
  // 405 (a method other than GET and HEAD), 413 (a body announced: any Content-Length but 0,
  // any Transfer-Encoding; a body is never read), 431 (over `max_headers` header lines).
  int status = 0;
  std::string reason;     // the refusal in a few words, e.g. "a line ends in a bare LF"
  bool head = false;      // a HEAD request: the answer has no body
  std::string forwarded;  // status 0: the request line, then the empty line (all cpp-httplib reads)
};

// Screens a request head as RequestHeadLength cut it.
HeadVerdict ScreenRequestHead(std::string_view head, size_t max_bytes, size_t max_headers);

// The path of the request line's target, as sent (not percent-decoded), without a query string
// or fragment: "/healthz" for "GET /healthz?verbose HTTP/1.1". Empty when the head holds no
// complete request line or its target is not a path (absolute form, "*").
std::string RequestPath(const std::string& head);

}  // namespace petname
