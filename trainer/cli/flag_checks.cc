#include "trainer/cli/flag_checks.h"

#include <cmath>
#include <sstream>
#include <string>

namespace petname::cli {

Status Positive(const char* flag, double value) {
  if (std::isfinite(value) && value > 0) return Status::Ok();
  std::ostringstream got;
  got << value;
  return Status::InvalidArgument(std::string(flag) + " must be positive (got " + got.str() + ")");
}

}  // namespace petname::cli
