#include "trainer/train/goal.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace petname::train {
namespace {

constexpr char kLossName[] = "validationLoss";
constexpr char kAccuracyName[] = "validationAccuracy";

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

Status ParseGoal(const std::string& text, Goal* out) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) {
    return Status::InvalidArgument("--goal must be METRIC=VALUE with METRIC " +
                                   std::string(kLossName) + " or " + kAccuracyName + " (got \"" +
                                   text + "\")");
  }
  const std::string name = text.substr(0, eq);
  const std::string number = text.substr(eq + 1);
  GoalMetric metric = GoalMetric::kValidationLoss;
  if (name == kAccuracyName) {
    metric = GoalMetric::kValidationAccuracy;
  } else if (name != kLossName) {
    return Status::InvalidArgument("--goal: unknown metric \"" + name + "\" (known: " + kLossName +
                                   ", " + kAccuracyName + ")");
  }
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || errno != 0 || *end != '\0' || !std::isfinite(value)) {
    return Status::InvalidArgument("--goal: \"" + number + "\" is not a number");
  }
  if (metric == GoalMetric::kValidationLoss && value < 0) {
    return Status::InvalidArgument("--goal: validationLoss must be >= 0 (got " + number + ")");
  }
  if (metric == GoalMetric::kValidationAccuracy && (value < 0 || value > 1)) {
    return Status::InvalidArgument("--goal: validationAccuracy must be in [0, 1] (got " + number +
                                   ")");
  }
  out->set = true;
  out->metric = metric;
  out->value = value;
  return Status::Ok();
}

std::string DescribeGoal(const Goal& goal) {
  return goal.metric == GoalMetric::kValidationLoss
             ? std::string(kLossName) + " <= " + Number(goal.value)
             : std::string(kAccuracyName) + " >= " + Number(goal.value);
}

bool GoalMet(const Goal& goal, double validation_loss, double validation_accuracy) {
  if (!goal.set) return false;
  if (goal.metric == GoalMetric::kValidationLoss) {
    return std::isfinite(validation_loss) && validation_loss <= goal.value;
  }
  return std::isfinite(validation_accuracy) && validation_accuracy >= goal.value;
}

const metrics::EpochRecord* FirstRecordMeetingGoal(const Goal& goal,
                                                   const std::vector<metrics::EpochRecord>& records,
                                                   int up_to_epoch) {
  const metrics::EpochRecord* first = nullptr;
  for (const metrics::EpochRecord& r : records) {
    if (r.epoch > up_to_epoch || !GoalMet(goal, r.validation_loss, r.validation_accuracy)) continue;
    if (first == nullptr || r.epoch < first->epoch) first = &r;
  }
  return first;
}

}  // namespace petname::train
