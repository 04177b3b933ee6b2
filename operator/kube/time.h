// Kubernetes timestamps (RFC 3339, UTC, second precision: "2006-01-02T15:04:05Z") to and from
// Unix seconds, so that pure functions can compare status times with a `now` their caller passes.
#pragma once

#include <cstdint>
#include <string>

namespace petname::kube {

// The range of RFC 3339 timestamps: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
inline constexpr int64_t kMinUnixSeconds = -62135596800;
inline constexpr int64_t kMaxUnixSeconds = 253402300799;

// Unix seconds now (the wall clock; the only impure function here).
int64_t NowUnix();

// `unix_seconds` clamped to [kMinUnixSeconds, kMaxUnixSeconds], formatted.
std::string FormatTime(int64_t unix_seconds);

// Parses "YYYY-MM-DDTHH:MM:SS" followed by "Z" or fractional seconds and "Z"; false otherwise.
bool ParseTime(const std::string& text, int64_t* unix_seconds);

}  // namespace petname::kube
