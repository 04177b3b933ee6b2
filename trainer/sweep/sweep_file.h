// The YAML file of `petname sweep --config FILE`: a whole PetNameTrainingSweep object
// (apiVersion, kind, metadata.name, spec) as `kubectl apply` takes it, or just its spec, plus
// an optional top-level `data:` path for the trials' training data. Parsed into JSON of the
// same shape (yaml_json.h: YAML scalars typed as Kubernetes reads them, plain numbers are
// numbers, quoted ones strings; aliases expanded within kYamlAliasBudget values), so the spec
// goes through sweep::SweepSpecFromJson like the operator's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::sweep {

struct SweepFile {
  std::string name;  // metadata.name, else the file name's stem
  nlohmann::json spec = nlohmann::json::object();
  std::string data;  // the top-level `data:`; empty when absent
};

// Parses the YAML `text` of a file whose stem (name without directory and extension) is
// `stem`. InvalidArgument names the problem: YAML syntax, an alias cycle or aliases over the
// budget (with the line), a top level that is not a mapping, a `spec` or `data` of the wrong
// type.
Status ParseSweepFile(const std::string& text, const std::string& stem, SweepFile* out);

// Reads and parses the file at `path`; a file that cannot be read is InvalidArgument too (it
// is the user's argument).
Status ReadSweepFile(const std::string& path, SweepFile* out);

}  // namespace petname::sweep
