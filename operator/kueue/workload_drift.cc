#include "operator/kueue/workload_drift.h"

#include <cctype>
#include <cmath>
#include <cstddef>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "operator/kueue/workload.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

const std::map<std::string, long double>& Suffixes() {
  static const std::map<std::string, long double> kSuffixes = {{"", 1.0L},
                                                               {"n", 1e-9L},
                                                               {"u", 1e-6L},
                                                               {"m", 1e-3L},
                                                               {"k", 1e3L},
                                                               {"M", 1e6L},
                                                               {"G", 1e9L},
                                                               {"T", 1e12L},
                                                               {"P", 1e15L},
                                                               {"E", 1e18L},
                                                               {"Ki", 1024.0L},
                                                               {"Mi", 1048576.0L},
                                                               {"Gi", 1073741824.0L},
                                                               {"Ti", 1099511627776.0L},
                                                               {"Pi", 1125899906842624.0L},
                                                               {"Ei", 1152921504606846976.0L}};
  return kSuffixes;
}

// The "ranks" pod set of a Workload (null when it has none).
Json RankPodSet(const Json& wl) {
  for (const Json& ps : wl.value("/spec/podSets"_json_pointer, Json::array())) {
    if (ps.is_object() && ps.value("name", "") == kPodSetName) return ps;
  }
  return Json();
}

bool SameQuantities(const Json& a, const Json& b) {
  const Json none = Json::object();
  const Json& x = a.is_object() ? a : none;
  const Json& y = b.is_object() ? b : none;
  if (x.size() != y.size()) return false;
  for (const auto& [name, q] : x.items()) {
    if (!y.contains(name)) return false;
    long double u = 0;
    long double v = 0;
    if (!QuantityValue(q, &u) || !QuantityValue(y[name], &v)) {
      if (q != y[name]) return false;
      continue;
    }
    if (std::fabs(u - v) > 1e-12L * std::fmax(std::fabs(u), std::fabs(v))) return false;
  }
  return true;
}

// container name -> its resources, for one list (containers or initContainers) of a template.
std::map<std::string, Json> Resources(const Json& pod_set, const char* list) {
  std::map<std::string, Json> out;
  const Json::json_pointer at("/template/spec/" + std::string(list));
  for (const Json& c : pod_set.value(at, Json::array())) {
    if (c.is_object()) out[c.value("name", "")] = c.value("resources", Json::object());
  }
  return out;
}

bool SameResources(const Json& a, const Json& b) {
  for (const char* list : {"containers", "initContainers"}) {
    const std::map<std::string, Json> x = Resources(a, list);
    const std::map<std::string, Json> y = Resources(b, list);
    if (x.size() != y.size()) return false;
    for (const auto& [name, r] : x) {
      auto it = y.find(name);
      if (it == y.end()) return false;
      for (const char* kind : {"requests", "limits"}) {
        if (!SameQuantities(r.value(kind, Json()), it->second.value(kind, Json()))) return false;
      }
    }
  }
  return true;
}

bool SamePodSets(const Json& current, const Json& wanted) {
  const Json a = RankPodSet(current);
  const Json b = RankPodSet(wanted);
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null();
  return a.value("count", 1) == b.value("count", 1) &&
         a.value("minCount", -1) == b.value("minCount", -1) && SameResources(a, b);
}

}  // namespace

std::string WorkloadPriorityClass(const Json& wl) {
  const Json ref = wl.value("/spec/priorityClassRef"_json_pointer, Json());
  if (!ref.is_object() || ref.value("kind", "") != "WorkloadPriorityClass") return "";
  return ref.value("name", "");
}

bool QuantityValue(const Json& quantity, long double* value) {
  if (quantity.is_number()) {
    *value = quantity.get<long double>();
    return true;
  }
  if (!quantity.is_string()) return false;
  const std::string s = quantity.get<std::string>();
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.' ||
                            (end == 0 && (s[end] == '+' || s[end] == '-')))) {
    ++end;
  }
  if (end == 0 || s.find_first_of("0123456789") >= end) return false;
  long double number = 0;
  try {
    number = std::stold(s.substr(0, end));
  } catch (const std::exception&) {
    return false;
  }
  const std::string suffix = s.substr(end);
  if (!suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1) {
    const std::string exp = suffix.substr(1);
    if (exp.find_first_not_of("+-0123456789") != std::string::npos) return false;
    *value = number * std::pow(10.0L, std::stold(exp));
    return true;
  }
  auto it = Suffixes().find(suffix);
  if (it == Suffixes().end()) return false;
  *value = number * it->second;
  return true;
}

WorkloadDrift CompareWorkload(const Json& current, const Json& wanted) {
  WorkloadDrift d;
  d.pod_sets = !SamePodSets(current, wanted);
  d.execution_time = current.value("/spec/maximumExecutionTimeSeconds"_json_pointer, Json()) !=
                     wanted.value("/spec/maximumExecutionTimeSeconds"_json_pointer, Json());
  d.queue = current.value("/spec/queueName"_json_pointer, std::string()) !=
            wanted.value("/spec/queueName"_json_pointer, std::string());
  if (WorkloadPriorityOf(current).kind == WorkloadPriority::Kind::kPriorityClass) return d;
  const std::string was = WorkloadPriorityClass(current);
  const std::string is = WorkloadPriorityClass(wanted);
  d.priority_class = was != is;
  d.priority_presence = was.empty() != is.empty();
  return d;
}

Json WithSpecOf(const Json& current, const Json& wanted, bool reserved) {
  Json out = current;
  Json& spec = out["spec"];
  if (!spec.is_object()) spec = Json::object();
  const Json from = wanted.value("spec", Json::object());
  static const std::vector<const char*> kPriority = {"priorityClassRef", "priority"};
  static const std::vector<const char*> kAll = {"podSets", "queueName", "priorityClassRef",
                                                "priority", "maximumExecutionTimeSeconds"};
  for (const char* key : reserved ? kPriority : kAll) {
    if (from.contains(key)) {
      spec[key] = from[key];
    } else {
      spec.erase(key);
    }
  }
  return out;
}

}  // namespace petname::api
