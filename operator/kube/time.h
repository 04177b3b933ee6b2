// Kubernetes timestamps (RFC 3339, UTC, second precision: "2006-01-02T15:04:05Z") to and from
// Unix seconds, so that pure functions can compare status times with a `now` their caller passes.
#pragma once

#include <cstdint>
#include <string>

namespace petname::kube {

// Unix seconds now (the wall clock; the only impure function here).
int64_t NowUnix();

std::string FormatTime(int64_t unix_seconds);

// Parses "YYYY-MM-DDTHH:MM:SS" followed by "Z" or fractional seconds and "Z"; false otherwise.
bool ParseTime(const std::string& text, int64_t* unix_seconds);

}  // namespace petname::kube
