// The retry decisions of RestClient::Do (pure), after client-go's rest.Request and net/http:
//  - 429 (Too Many Requests, e.g. from API Priority and Fairness) is retried for every verb: the
//    server did not process the request;
//  - 5xx carrying a Retry-After header is retried for every verb, as client-go does (the server
//    asks for it). A POST whose first attempt was applied then meets 409 AlreadyExists, which
//    the caller treats as done;
//  - 500, 502, 503, 504 without Retry-After and answers that never came (connection errors) are
//    retried only for idempotent verbs (GET, HEAD, PUT, DELETE, OPTIONS): a POST or PATCH may
//    have been applied, so its failure goes back to the caller (the reconcile fails and its key
//    is re-queued with the work queue's per-key backoff);
//  - nothing else is retried, and no request more than `max_retries` times (client-go: 10).
// The delay is the server's Retry-After (capped at `max_retry_after`) when it gave a positive
// one, else the caller's next exponential backoff delay.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace petname::kube {

struct RetryPolicy {
  int max_retries = 10;
  std::chrono::seconds max_retry_after{10};
};

// One attempt's outcome.
struct Attempt {
  std::string verb;                                 // HTTP method
  int code = 0;                                     // 0: no answer
  std::optional<std::chrono::seconds> retry_after;  // the parsed Retry-After header, if any
  int retries = 0;                                  // retries already made for this request
};

bool IsIdempotent(const std::string& verb);

// The delay before the next attempt, or nullopt when the outcome stands. `backoff` is the
// delay the caller's backoff would take next (used when the server named none).
std::optional<std::chrono::milliseconds> RetryDelay(const Attempt& attempt,
                                                    const RetryPolicy& policy,
                                                    std::chrono::milliseconds backoff);

// Parses a Retry-After header value (RFC 9110): delay-seconds ("120") or an HTTP-date
// (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", or the obsolete RFC 850 and asctime forms),
// the latter relative to `now_unix` (a date in the past reads as 0). False when it is neither.
bool ParseRetryAfter(const std::string& value, int64_t now_unix, std::chrono::seconds* delay);

}  // namespace petname::kube
