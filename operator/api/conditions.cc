#include "operator/api/conditions.h"

namespace petname::api {

void SetCondition(std::vector<Condition>* conditions, const std::string& type, bool status,
                  const std::string& reason, const std::string& message, int64_t now) {
  Condition cond{type, status, reason, message, now};
  for (Condition& c : *conditions) {
    if (c.type != type) continue;
    if (c.status == status && c.last_transition_time != 0) {
      cond.last_transition_time = c.last_transition_time;
    }
    c = std::move(cond);
    return;
  }
  conditions->push_back(std::move(cond));
}

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool ConditionIs(const std::vector<Condition>& conditions, const std::string& type, bool status) {
  const Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status == status;
}

}  // namespace petname::api
