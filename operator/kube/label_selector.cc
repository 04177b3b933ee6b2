#include "operator/kube/label_selector.h"

namespace petname::kube {
namespace {

using Json = nlohmann::json;

Status Requirement(const Json& e, size_t i, LabelRequirement* r) {
  const std::string at = "matchExpressions[" + std::to_string(i) + "]";
  if (!e.is_object() || !e.contains("key") || !e["key"].is_string()) {
    return Status::InvalidArgument(at + ": no key");
  }
  r->key = e["key"].get<std::string>();
  const std::string op = e.value("operator", "");
  if (op == "In") {
    r->op = LabelRequirement::Op::kIn;
  } else if (op == "NotIn") {
    r->op = LabelRequirement::Op::kNotIn;
  } else if (op == "Exists") {
    r->op = LabelRequirement::Op::kExists;
  } else if (op == "DoesNotExist") {
    r->op = LabelRequirement::Op::kDoesNotExist;
  } else {
    return Status::InvalidArgument(at + ": operator '" + op +
                                   "' is not In, NotIn, Exists or DoesNotExist");
  }
  const Json values = e.value("values", Json::array());
  if (!values.is_array()) return Status::InvalidArgument(at + ": values is not a list");
  for (const Json& v : values) {
    if (!v.is_string()) return Status::InvalidArgument(at + ": a value is not a string");
    r->values.insert(v.get<std::string>());
  }
  const bool set_op = r->op == LabelRequirement::Op::kIn || r->op == LabelRequirement::Op::kNotIn;
  if (set_op == r->values.empty()) {
    return Status::InvalidArgument(at + ": " + op +
                                   (set_op ? " needs values" : " takes no values"));
  }
  return Status::Ok();
}

}  // namespace

std::set<std::string> LabelSelector::Keys() const {
  std::set<std::string> keys;
  for (const LabelRequirement& r : requirements) keys.insert(r.key);
  return keys;
}

Status ParseLabelSelector(const Json& selector, LabelSelector* out) {
  *out = LabelSelector{};
  if (selector.is_null()) return Status::Ok();
  if (!selector.is_object()) return Status::InvalidArgument("a label selector is not a map");
  const Json labels = selector.value("matchLabels", Json::object());
  if (!labels.is_object()) return Status::InvalidArgument("matchLabels is not a map");
  for (const auto& [key, value] : labels.items()) {
    if (!value.is_string()) {
      return Status::InvalidArgument("matchLabels." + key + " is not a string");
    }
    out->requirements.push_back({key, LabelRequirement::Op::kIn, {value.get<std::string>()}});
  }
  const Json expressions = selector.value("matchExpressions", Json::array());
  if (!expressions.is_array()) return Status::InvalidArgument("matchExpressions is not a list");
  for (size_t i = 0; i < expressions.size(); ++i) {
    LabelRequirement r;
    PETNAME_RETURN_IF_ERROR(Requirement(expressions[i], i, &r));
    out->requirements.push_back(std::move(r));
  }
  return Status::Ok();
}

bool Matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  for (const LabelRequirement& r : selector.requirements) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    switch (r.op) {
      case LabelRequirement::Op::kIn:
        if (!has || r.values.count(it->second) == 0) return false;
        break;
      case LabelRequirement::Op::kNotIn:
        if (has && r.values.count(it->second) != 0) return false;
        break;
      case LabelRequirement::Op::kExists:
        if (!has) return false;
        break;
      case LabelRequirement::Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace petname::kube
