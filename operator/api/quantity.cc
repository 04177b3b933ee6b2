#include "operator/api/quantity.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace petname::api {
namespace {

bool IsDigits(const std::string& s) {
  return s.find_first_not_of("0123456789") == std::string::npos;
}

// floor(0.DIGITS x 10^point), saturating at kMaxWholeCpus.
int64_t FloorOf(const std::string& digits, int64_t point) {
  int64_t value = 0;
  for (int64_t i = 0; i < point; ++i) {
    const int digit = i < static_cast<int64_t>(digits.size()) ? digits[i] - '0' : 0;
    value = value * 10 + digit;
    if (value > kMaxWholeCpus) return kMaxWholeCpus;
  }
  return value;
}

// A JSON integer quantity, saturating at `max`; false when negative.
bool NonNegativeInteger(const nlohmann::json& quantity, int64_t max, int64_t* out) {
  if (!quantity.is_number_unsigned() && quantity.get<int64_t>() < 0) return false;
  const uint64_t v = quantity.get<uint64_t>();
  *out = v > static_cast<uint64_t>(max) ? max : static_cast<int64_t>(v);
  return true;
}

}  // namespace

bool WholeCpus(const nlohmann::json& quantity, int64_t* cores) {
  if (quantity.is_number_integer()) return NonNegativeInteger(quantity, kMaxWholeCpus, cores);
  if (!quantity.is_string()) return false;
  std::string s = quantity.get<std::string>();
  int64_t shift = 0;  // the suffix as a power of ten
  if (!s.empty() && s.back() == 'm') {
    shift = -3;
    s.pop_back();
  } else if (const size_t e = s.find_first_of("eE"); e != std::string::npos) {
    const std::string exponent = s.substr(e + 1);
    if (exponent.empty() || exponent.size() > 4 || !IsDigits(exponent)) return false;
    shift = std::stoll(exponent);
    s.resize(e);
  }
  const size_t dot = s.find('.');
  std::string whole = s.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : s.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || !IsDigits(whole) || !IsDigits(fraction)) return false;
  *cores = FloorOf(whole + fraction, static_cast<int64_t>(whole.size()) + shift);
  return true;
}

bool MemoryBytes(const nlohmann::json& quantity, int64_t* bytes) {
  if (quantity.is_number_integer()) return NonNegativeInteger(quantity, kMaxMemoryBytes, bytes);
  if (!quantity.is_string()) return false;
  std::string s = quantity.get<std::string>();
  long double factor = 1;
  static const std::string kBinary = "KMGTPE";   // Ki .. Ei
  static const std::string kDecimal = "kMGTPE";  // k .. E
  if (s.size() >= 2 && s.back() == 'i' && kBinary.find(s[s.size() - 2]) != std::string::npos) {
    factor = std::pow(1024.0L, static_cast<long double>(kBinary.find(s[s.size() - 2]) + 1));
    s.resize(s.size() - 2);
  } else if (!s.empty() && kDecimal.find(s.back()) != std::string::npos) {
    factor = std::pow(1000.0L, static_cast<long double>(kDecimal.find(s.back()) + 1));
    s.pop_back();
  } else if (const size_t e = s.find_first_of("eE"); e != std::string::npos) {
    const std::string exponent = s.substr(e + 1);
    if (exponent.empty() || exponent.size() > 2 || !IsDigits(exponent)) return false;
    factor = std::pow(10.0L, static_cast<long double>(std::stoi(exponent)));
    s.resize(e);
  }
  const size_t dot = s.find('.');
  const std::string whole = s.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : s.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || !IsDigits(whole) || !IsDigits(fraction)) return false;
  const long double value = std::floor(std::strtold(s.c_str(), nullptr) * factor);
  *bytes = value >= static_cast<long double>(kMaxMemoryBytes) ? kMaxMemoryBytes
                                                              : static_cast<int64_t>(value);
  return true;
}

}  // namespace petname::api
