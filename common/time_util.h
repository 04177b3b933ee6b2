// RFC 3339 UTC timestamps, as Kubernetes writes them (Time: whole seconds; MicroTime: six
// fraction digits) and as log lines carry them (milliseconds).
#pragma once

#include <chrono>
#include <string>

namespace petname {

// `t` as 2026-11-22T05:50:00Z, or with `fraction_digits` (3 or 6) as 2026-11-22T05:50:00.123Z.
std::string Rfc3339(std::chrono::system_clock::time_point t, int fraction_digits = 0);

// Unix time now, in seconds with their fraction.
double UnixNowSeconds();

}  // namespace petname
