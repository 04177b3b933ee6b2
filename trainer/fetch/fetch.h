// `petname fetch`: downloads a data file over HTTP(S) with libcurl and keeps it only when its
// SHA-256 is the expected one.
//
//  - http:// and https:// only, redirects included (file://, ftp://, ... are refused);
//  - TLS peers are always verified against the system CAs (ca-certificates), plus the CAs of
//    `ca_file` when given; there is no way to turn verification off;
//  - at most `max_bytes` bytes: a Content-Length above it ends the attempt before the body, and
//    the transfer is cut off as soon as the body exceeds it;
//  - up to `retries` more attempts after a failure that may pass (attempt.h: connection
//    failures, timeouts, broken transfers, HTTP 5xx/408/429), with capped exponential backoff
//    (common/backoff.h); a checksum mismatch, other 4xx and certificate failures are final;
//  - a transfer that stays below kLowSpeedBytesPerSecond for `timeout_seconds` is aborted (a
//    timeout, retried); all attempts and the waits between them end within `deadline_seconds`
//    of the start, however a server trickles its bytes;
//  - the body goes to a temporary file beside `output` (".<name>.part-XXXXXX"), which is
//    renamed over `output` (and the directory fsync'ed) only after the digest matched; on any
//    failure the temporary file is removed, so `output` is either absent, left as it was, or
//    the complete, verified file.
// libcurl honours the usual http_proxy / https_proxy / no_proxy environment variables.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace petname::fetch {

// The default of --max-bytes: 1 GiB, the trainer's default --max-data-bytes.
inline constexpr int64_t kDefaultMaxBytes = int64_t{1} << 30;
// Slower than this for --timeout seconds and the attempt is aborted.
inline constexpr long kLowSpeedBytesPerSecond = 1024;

struct FetchOptions {
  std::string url;
  std::string sha256;  // 64 hex digits (either case)
  std::string output;
  std::string ca_file;  // PEM file of extra trusted CAs ("" = the system CAs only)
  int64_t max_bytes = kDefaultMaxBytes;
  int retries = 4;             // further attempts after the first
  int timeout_seconds = 30;    // to connect, and the longest the transfer may run slowly
  int deadline_seconds = 600;  // the whole fetch, every attempt and wait included
  std::chrono::milliseconds backoff_base{500};
  std::chrono::milliseconds backoff_cap{8000};
};

// Checks the options before any network access; InvalidArgument (a usage error) naming the
// flag: --url not http(s) (RedactUrl'ed in the message), --sha256 not 64 hex digits, empty
// --output, --max-bytes, --timeout or --deadline not positive, --retries outside 0..100,
// --ca-file unreadable. Lower-cases `sha256`.
Status CheckFetchOptions(FetchOptions* options);

// Downloads options.url into options.output (see above); *bytes gets the file's size. Errors
// are "fetch <redacted URL>: ..." with code kCorruption for a checksum mismatch
// ("sha256 mismatch: expected X, got Y"), kUnavailable when the server could not be reached or
// answered with an error ("host unreachable after 5 attempts: ...", "HTTP 404"; "...; --deadline
// N s reached" when the deadline ended it or left no time for another attempt), kIoError for
// local files; all exit 1.
Status Fetch(const FetchOptions& options, int64_t* bytes);

}  // namespace petname::fetch
