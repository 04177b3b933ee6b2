#include "trainer/fetch/attempt.h"

namespace petname::fetch {

bool ShouldRetry(const Attempt& a) {
  switch (a.failure) {
    case Failure::kConnect:
    case Failure::kTimeout:
    case Failure::kTransfer:
      return true;
    case Failure::kHttpStatus:
      return a.http_status >= 500 || a.http_status == 408 || a.http_status == 429;
    case Failure::kNone:
    case Failure::kTls:
    case Failure::kTooLarge:
    case Failure::kLocal:
    case Failure::kRedirect:
      return false;
  }
  return false;
}

std::string DescribeFailure(const Attempt& a, int attempts) {
  std::string what;
  switch (a.failure) {
    case Failure::kNone:
      what = "no failure";
      break;
    case Failure::kConnect:
      what = "host unreachable";
      break;
    case Failure::kTimeout:
      what = "timed out";
      break;
    case Failure::kTransfer:
      what = "transfer broken off";
      break;
    case Failure::kHttpStatus:
      what = "HTTP " + std::to_string(a.http_status);
      break;
    case Failure::kTls:
      what = "TLS failed";
      break;
    case Failure::kTooLarge:
      what = "too large";
      break;
    case Failure::kLocal:
      what = "cannot write the download";
      break;
    case Failure::kRedirect:
      what = "redirect refused";
      break;
  }
  if (attempts > 1) what += " after " + std::to_string(attempts) + " attempts";
  if (a.failure == Failure::kHttpStatus || a.detail.empty()) return what;
  return what + ": " + a.detail;
}

}  // namespace petname::fetch
