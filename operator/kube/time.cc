#include "operator/kube/time.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace petname::kube {

int64_t NowUnix() { return static_cast<int64_t>(std::time(nullptr)); }

std::string FormatTime(int64_t unix_seconds) {
  // gmtime_r on the seconds themselves: a system_clock time point counts nanoseconds, which
  // overflow beyond the year 2262.
  const std::time_t t =
      static_cast<std::time_t>(std::clamp(unix_seconds, kMinUnixSeconds, kMaxUnixSeconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];  // room for any int fields, as -Wformat-truncation asks
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
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
