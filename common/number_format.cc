#include "common/number_format.h"

#include <cmath>
#include <cstdio>

namespace petname {

std::string FixedDigits(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

}  // namespace petname
