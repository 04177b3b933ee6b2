#include "operator/kube/retry_policy.h"

#include <algorithm>
#include <ctime>

namespace petname::kube {
namespace {

bool IsDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool ParseHttpDate(const std::string& value, int64_t* unix_seconds) {
  // IMF-fixdate, RFC 850, asctime (RFC 9110 section 5.6.7).
  for (const char* format :
       {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* rest = strptime(value.c_str(), format, &tm);
    if (rest != nullptr && *rest == '\0') {
      *unix_seconds = static_cast<int64_t>(timegm(&tm));
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsIdempotent(const std::string& verb) {
  return verb == "GET" || verb == "HEAD" || verb == "PUT" || verb == "DELETE" || verb == "OPTIONS";
}

std::optional<std::chrono::milliseconds> RetryDelay(const Attempt& attempt,
                                                    const RetryPolicy& policy,
                                                    std::chrono::milliseconds backoff) {
  if (attempt.retries >= policy.max_retries) return std::nullopt;
  const int code = attempt.code;
  const bool server_asked = attempt.retry_after.has_value() && (code == 429 || code >= 500);
  const bool transient = code == 0 || code == 500 || code == 502 || code == 503 || code == 504;
  if (!(code == 429 || server_asked || (transient && IsIdempotent(attempt.verb)))) {
    return std::nullopt;
  }
  if (server_asked && *attempt.retry_after > std::chrono::seconds(0)) {
    return std::chrono::milliseconds(std::min(*attempt.retry_after, policy.max_retry_after));
  }
  return backoff;
}

bool ParseRetryAfter(const std::string& value, int64_t now_unix, std::chrono::seconds* delay) {
  if (IsDigits(value)) {
    if (value.size() > 9) return false;  // beyond any sensible delay (and int overflow)
    *delay = std::chrono::seconds(std::stoll(value));
    return true;
  }
  int64_t at = 0;
  if (!ParseHttpDate(value, &at)) return false;
  *delay = std::chrono::seconds(std::max<int64_t>(0, at - now_unix));
  return true;
}

}  // namespace petname::kube
