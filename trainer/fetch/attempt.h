// How one download attempt of `petname fetch` ended, and whether another attempt may help.
// Pure: the transfer (fetch.h) classifies what libcurl and the server said into a Failure; the
// retry loop asks ShouldRetry.
#pragma once

#include <string>

namespace petname::fetch {

enum class Failure {
  kNone,        // the body arrived whole
  kConnect,     // DNS, TCP connect or proxy failure: the host is unreachable for now
  kTimeout,     // no connection or no bytes within --timeout
  kTransfer,    // the connection broke during the transfer (reset, short body)
  kHttpStatus,  // the server answered with an HTTP error status (see http_status)
  kTls,         // TLS handshake or certificate verification failed
  kTooLarge,    // the body (or its Content-Length) is larger than --max-bytes
  kLocal,       // writing the temporary file failed (disk full, ...)
  kRedirect,    // a redirect to another scheme (file://, ftp://...) or too many redirects
};

struct Attempt {
  Failure failure = Failure::kNone;
  long http_status = 0;  // the last HTTP status seen (0: none)
  std::string detail;    // libcurl's message, for the error line
};

// True for failures a later attempt may not repeat: connection failures, timeouts, broken
// transfers, HTTP 5xx, 408 (Request Timeout) and 429 (Too Many Requests). Other 4xx answers,
// certificate failures, refused redirects, an oversized body and local write errors are final; so
// is a checksum mismatch, which is decided after the transfer (the server sends what it has).
bool ShouldRetry(const Attempt& attempt);

// The end of the error line for the last of `attempts` attempts: what failed ("host
// unreachable", "timed out", "transfer broken off", "HTTP 503", ...), " after N attempts" when
// N > 1, then ": detail" when there is one (never for an HTTP status, which says it all).
std::string DescribeFailure(const Attempt& attempt, int attempts);

}  // namespace petname::fetch
