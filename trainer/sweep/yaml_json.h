// YAML text to JSON of the same shape, with a bound on what aliases may add. Scalars are typed
// as Kubernetes reads them: a plain (unquoted) scalar by YAML 1.2's core schema (null, bool,
// integer, float, else a string), a quoted one stays a string; mapping keys are their text.
//
// Aliases are expanded by copying the anchored node, whose values count against
// `alias_budget`: YAML's "billion laughs" (nine aliases of nine aliases of ..., a few hundred
// bytes that expand to billions of values) is refused once its copies pass the budget, with
// memory bounded by it; an alias inside the node it names (`x: &a [*a]`, a cycle) is refused as
// it is met. yaml-cpp's own parser refuses nesting deeper than 2,000.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::sweep {

// Values that aliases may add to a sweep file: far more than anchors shared in a real one.
inline constexpr size_t kYamlAliasBudget = 10000;

// The first document of `text` (null when there is none) into *out. InvalidArgument
// "YAML error at line N: ..." for a syntax error, a cycle, aliases over `alias_budget`, or a
// mapping key that is not a scalar.
Status YamlToJson(const std::string& text, size_t alias_budget, nlohmann::json* out);

}  // namespace petname::sweep
