#include "operator/kube/time.h"

#include <ctime>

namespace petname::kube {

int64_t NowUnix() { return static_cast<int64_t>(std::time(nullptr)); }

std::string FormatTime(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool ParseTime(const std::string& text, int64_t* unix_seconds) {
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return false;
  if (*rest == '.') {
    ++rest;
    while (*rest >= '0' && *rest <= '9') ++rest;
  }
  if (rest[0] != 'Z' || rest[1] != '\0') return false;
  *unix_seconds = static_cast<int64_t>(timegm(&tm));
  return true;
}

}  // namespace petname::kube
