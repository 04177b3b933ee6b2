#include "common/time_util.h"

#include <cstdio>
#include <ctime>

namespace petname {

double UnixNowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Rfc3339(std::chrono::system_clock::time_point t, int fraction_digits) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() % 1000000;
  if (micros < 0) micros += 1000000;
  if (fraction_digits == 6) {
    std::snprintf(buf + n, sizeof(buf) - n, ".%06dZ", static_cast<int>(micros));
  } else if (fraction_digits == 3) {
    std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(micros / 1000));
  } else {
    std::snprintf(buf + n, sizeof(buf) - n, "Z");
  }
  return buf;
}

}  // namespace petname
