// The sweep CRD's spec.template schema is the job CRD's spec schema, copied verbatim (only the
// description differs; scripts/sync-sweep-crd copies it), and the CRD's defaults are the core's.
#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/sweep/spec.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

// A YAML node as JSON, scalars as their text (enough to compare two schemas).
Json ToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    Json out = Json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = ToJson(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    Json out = Json::array();
    for (const auto& item : node) out.push_back(ToJson(item));
    return out;
  }
  return node.IsScalar() ? Json(node.as<std::string>()) : Json();
}

Json SpecSchema(const char* path) {
  const YAML::Node crd = YAML::LoadFile(path);
  return ToJson(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]);
}

TEST(SweepCrdTest, TheTemplateIsTheJobSpec) {
  Json job = SpecSchema(PETNAME_CRD);
  Json tmpl = SpecSchema(PETNAME_SWEEP_CRD)["properties"]["template"];
  ASSERT_TRUE(tmpl.is_object());
  job.erase("description");
  tmpl.erase("description");
  EXPECT_EQ(tmpl, job) << "run scripts/sync-sweep-crd";
}

TEST(SweepCrdTest, TheCrdDefaultsAreTheCoresDefaults) {
  const Json sweep = SpecSchema(PETNAME_SWEEP_CRD)["properties"];
  const sweep::SweepSpec core;
  EXPECT_EQ(sweep["parallelTrialCount"]["default"], std::to_string(core.parallel_trial_count));
  EXPECT_EQ(sweep["seed"]["default"], std::to_string(core.seed));
  EXPECT_EQ(sweep["algorithm"]["default"], "grid");
  EXPECT_EQ(core.algorithm, sweep::Algorithm::kGrid);
  EXPECT_EQ(sweep["objective"]["properties"]["metric"]["default"],
            sweep::MetricName(core.objective.metric));
  EXPECT_EQ(sweep["earlyStopping"]["properties"]["minTrialsRequired"]["default"],
            std::to_string(core.median_stopping_min_trials));
}

}  // namespace
}  // namespace petname::api
