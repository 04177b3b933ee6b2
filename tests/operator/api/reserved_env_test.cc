// The reserved environment names (operator/api/reserved_env.h): the operator's check, and the
// CRDs' CEL rules on spec.env and on the template's trainer env, which must list the same names.
#include "operator/api/reserved_env.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

// Every x-kubernetes-validations rule under `node` that tests an env entry `e`.
void EnvRules(const YAML::Node& node, std::vector<std::string>* out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (kv.first.as<std::string>() == "x-kubernetes-validations") {
        for (const YAML::Node& v : kv.second) {
          const std::string rule = v["rule"].as<std::string>();
          if (rule.find("e.name") != std::string::npos) out->push_back(rule);
        }
      } else {
        EnvRules(kv.second, out);
      }
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) EnvRules(item, out);
  }
}

TEST(ReservedEnvTest, TheRendezvousTheJobsIdentityAndItsSecretAreReserved) {
  for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                           "PET_NNODES", "PET_ANYTHING", "PETNAME_JOB_UID", "PETNAME_JOB_NAME",
                           "PETNAME_NAMESPACE", "PETNAME_RENDEZVOUS_SECRET", "PETNAME_BACKEND"}) {
    EXPECT_TRUE(ReservedEnvName(name)) << name;
  }
  for (const char* name : {"OMP_NUM_THREADS", "NCCL_DEBUG", "PETNAME", "PET", "rank", "RANKS",
                           "MY_PETNAME_JOB_UID", "", "PETNAME_KATIB_METRICS_FILE"}) {
    EXPECT_FALSE(ReservedEnvName(name)) << name;
  }
}

TEST(ReservedEnvTest, CheckSpecEnvNamesEveryReservedEntry) {
  EXPECT_TRUE(CheckSpecEnv(Json::array()).ok());
  EXPECT_TRUE(CheckSpecEnv(Json::parse(R"([{"name": "OMP_NUM_THREADS", "value": "2"},
    {"name": "PETNAME_KATIB_METRICS_FILE", "value": "/var/run/katib/metrics.json"}])"))
                  .ok());
  const Status s = CheckSpecEnv(Json::parse(R"([{"name": "PETNAME_RENDEZVOUS_SECRET"},
    {"name": "A", "value": "1"}, {"name": "RANK", "value": "0"}, {"name": 7}, "x"])"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message().rfind(R"(spec.env sets "PETNAME_RENDEZVOUS_SECRET", "RANK", which )", 0),
            0U)
      << s.message();
}

TEST(ReservedEnvTest, TheCrdsRulesListTheSameNames) {
  EXPECT_EQ(ReservedEnvCel("e"),
            "!(e.name in ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT']) && "
            "!e.name.startsWith('PET_') && "
            "(!e.name.startsWith('PETNAME_') || e.name in ['PETNAME_KATIB_METRICS_FILE'])");
  // The job's spec.env and spec.template; the sweep's copies of both in spec.template.
  for (const std::string& path : {testing::JobCrd(), testing::SweepCrd()}) {
    std::vector<std::string> rules;
    EnvRules(YAML::LoadFile(path), &rules);
    ASSERT_EQ(rules.size(), 2U) << path;
    for (const std::string& rule : rules) {
      EXPECT_NE(rule.find(ReservedEnvCel("e")), std::string::npos) << path << ": " << rule;
    }
  }
}

}  // namespace
}  // namespace petname::api
