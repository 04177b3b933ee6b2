// Numbers as people read them in notes, reports and logs.
#pragma once

#include <string>

namespace petname {

// `value` with `digits` digits after the point (printf's %.*f: 0.125 -> "0.12" at 2,
// 2.5 -> "2" at 0, both rounded to even as printf does), or "-" when it is not finite.
std::string FixedDigits(double value, int digits);

}  // namespace petname
