#include "common/sweep/value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace petname::sweep {
namespace {

// Integers are exact in a double up to 2^53; larger magnitudes are refused as non-integers.
constexpr double kMaxExactInteger = 9007199254740992.0;

}  // namespace

bool IsWholeNumber(double x) { return std::floor(x) == x && std::fabs(x) <= kMaxExactInteger; }

const std::vector<std::string>& KnownParameters() {
  static const std::vector<std::string> kKnown = {
      "replicas",           "resources.gpusPerReplica", "training.batchSizePerReplica",
      "training.epochs",    "training.warmupSteps",     "training.learningRate",
      "training.precision", "training.lrSchedule"};
  return kKnown;
}

ValueKind KindOf(const std::string& parameter) {
  if (parameter == "training.learningRate") return ValueKind::kReal;
  if (parameter == "replicas" || parameter == "resources.gpusPerReplica" ||
      parameter == "training.batchSizePerReplica" || parameter == "training.epochs" ||
      parameter == "training.warmupSteps") {
    return ValueKind::kInteger;
  }
  return ValueKind::kText;
}

Json Value::ToJson() const {
  if (is_text) return text;
  if (IsWholeNumber(number)) return static_cast<int64_t>(number);
  return number;
}

bool Value::FromJson(const Json& j, Value* out) {
  if (j.is_string()) {
    *out = Value{0, j.get<std::string>(), true};
  } else if (j.is_number()) {
    *out = Value{j.get<double>(), "", false};
  } else {
    return false;
  }
  return true;
}

std::string Value::ToString() const {
  if (is_text) return text;
  char buf[64];
  if (IsWholeNumber(number)) {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(number));
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, number);
    if (std::strtod(buf, nullptr) == number) break;
  }
  return buf;
}

bool Value::operator==(const Value& other) const {
  if (is_text != other.is_text) return false;
  return is_text ? text == other.text : number == other.number;
}

}  // namespace petname::sweep
