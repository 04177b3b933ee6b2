// Kubernetes quantities: CPU (resources.cpu) read as whole cores, memory (resources.memory,
// resources.sharedMemory) read as bytes.
//
// Accepted: a JSON integer >= 0, or a string in the CRD's cpu pattern: a decimal number
// ("2", "0.5", ".5", "2.") with at most one suffix, "m" (thousandths) or an exponent "e<N>" /
// "E<N>" (times 10^N). The result is rounded down: "1500m" -> 1, "0.5" -> 0, "2e0" -> 2,
// "25e-1" is refused (no sign in the exponent, as in the CRD). Values above kMaxWholeCpus read
// as kMaxWholeCpus. Anything else (negative numbers, JSON floats, other suffixes, null) is not
// a CPU quantity.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace petname::api {

inline constexpr int64_t kMaxWholeCpus = 1 << 20;

// True and *cores = floor(quantity) when `quantity` is a CPU quantity; false otherwise.
bool WholeCpus(const nlohmann::json& quantity, int64_t* cores);

// Memory quantities, as the CRD's memory pattern accepts them: a JSON integer >= 0, or a string
// holding a decimal number ("1", "1.5", ".5") with at most one suffix: a binary one (Ki, Mi, Gi,
// Ti, Pi, Ei: times 1024^1..6), a decimal one (k, M, G, T, P, E: times 1000^1..6) or an exponent
// "e<N>" / "E<N>" (N of one or two digits, no sign). The result is rounded down to whole bytes;
// values above kMaxMemoryBytes read as kMaxMemoryBytes.
inline constexpr int64_t kMaxMemoryBytes = int64_t{1} << 62;

// True and *bytes = floor(quantity in bytes) when `quantity` is a memory quantity.
bool MemoryBytes(const nlohmann::json& quantity, int64_t* bytes);

}  // namespace petname::api
