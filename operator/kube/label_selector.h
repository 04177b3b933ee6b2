// A Kubernetes metav1.LabelSelector (matchLabels and matchExpressions with In, NotIn, Exists,
// DoesNotExist), read from its JSON form and evaluated against a set of labels as the API
// machinery does: every matchLabels pair and every expression must hold; an empty selector
// matches everything. Pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::kube {

struct LabelRequirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kExists;
  std::set<std::string> values;
};

struct LabelSelector {
  std::vector<LabelRequirement> requirements;  // matchLabels as In with one value, then the rest

  // The label keys the requirements read.
  std::set<std::string> Keys() const;
};

// InvalidArgument naming the field for what is not a LabelSelector (an unknown operator, values
// with Exists, no values with In).
Status ParseLabelSelector(const nlohmann::json& selector, LabelSelector* out);

bool Matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels);

}  // namespace petname::kube
