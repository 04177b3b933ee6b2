// The sweep CRD's spec.template schema is the job CRD's spec schema, copied verbatim (only the
// description differs; scripts/sync-sweep-crd copies it), and the CRD's defaults are the core's.
#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/sweep/spec.h"
#include "operator/kube/yaml_json.h"

#include "tests/support/test_paths.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

Json SpecSchema(const std::string& path) {
  const YAML::Node crd = YAML::LoadFile(path);
  return kube::YamlToJson(
      crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]);
}

TEST(SweepCrdTest, TheTemplateIsTheJobSpec) {
  Json job = SpecSchema(testing::JobCrd());
  Json tmpl = SpecSchema(testing::SweepCrd())["properties"]["template"];
  ASSERT_TRUE(tmpl.is_object());
  job.erase("description");
  tmpl.erase("description");
  EXPECT_EQ(tmpl, job) << "run scripts/sync-sweep-crd";
}

TEST(SweepCrdTest, TheCrdDefaultsAreTheCoresDefaults) {
  const Json sweep = SpecSchema(testing::SweepCrd())["properties"];
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
