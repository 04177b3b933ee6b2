#include "operator/metrics/job_transitions.h"

#include <string>

namespace petname::operator_metrics {
namespace {

std::string Phase(const nlohmann::json& status) {
  if (!status.is_object()) return "";
  auto it = status.find("phase");
  return it != status.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Restarts(const nlohmann::json& status) {
  if (!status.is_object()) return 0;
  auto it = status.find("restarts");
  return it != status.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

JobTransitions CountTransitions(const nlohmann::json& old_status,
                                const nlohmann::json& new_status) {
  JobTransitions t;
  const std::string before = Phase(old_status);
  const std::string after = Phase(new_status);
  t.created = before.empty() && !after.empty();
  t.succeeded = after == "Succeeded" && before != "Succeeded";
  t.failed = after == "Failed" && before != "Failed";
  t.restarts = std::max<int64_t>(0, Restarts(new_status) - Restarts(old_status));
  return t;
}

}  // namespace petname::operator_metrics
