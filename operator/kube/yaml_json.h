// A YAML document as JSON, for reading YAML files (a CRD, Kueue's Configuration) with the JSON
// accessors the rest of the operator uses. Maps and sequences map to objects and arrays; a plain
// (unquoted) true or false to a bool; every other scalar to its text (numbers too); null to null.
// Pure.
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace petname::kube {

nlohmann::json YamlToJson(const YAML::Node& node);

}  // namespace petname::kube
