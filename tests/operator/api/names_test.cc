#include "operator/api/names.h"

#include <gtest/gtest.h>

#include "operator/api/job.h"
#include "operator/api/sweep.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

TEST(NamesTest, Dns1035Labels) {
  for (const char* ok : {"a", "pets", "pets-v2", "a1", "x-0-y"}) {
    EXPECT_TRUE(IsDns1035Label(ok)) << ok;
  }
  for (const char* bad : {"", "pets.v2", "2pets", "-pets", "pets-", "Pets", "pets_v2", "pé"}) {
    EXPECT_FALSE(IsDns1035Label(bad)) << bad;
  }
  EXPECT_TRUE(IsDns1035Label(std::string(63, 'a')));
  EXPECT_FALSE(IsDns1035Label(std::string(64, 'a')));
}

TEST(NamesTest, ExtendedResourceNames) {
  for (const char* ok :
       {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "amd.com/gpu", "example.com/gpu",
        "habana.ai/gaudi", "rdma/hca_shared_devices_a", "gpu.intel.com/i915", "k8s.io/x"}) {
    EXPECT_TRUE(IsExtendedResourceName(ok)) << ok;
  }
  for (const char* bad :
       {"", "gpu", "cpu", "memory", "hugepages-2Mi", "kubernetes.io/gpu", "node.kubernetes.io/x",
        "nvidia.com/", "/gpu", "Nvidia.com/gpu", "nvidia.com/-gpu", "nvidia.com/gpu-",
        "nvidia.com/a/b", "nvidia..com/gpu", "nvidia.com/gpu x"}) {
    EXPECT_FALSE(IsExtendedResourceName(bad)) << bad;
  }
  EXPECT_TRUE(IsDnsSubdomain("a.b-c.d"));
  EXPECT_FALSE(IsDnsSubdomain(std::string(254, 'a')));
}

TEST(NamesTest, CheckObjectNameSaysWhichRule) {
  EXPECT_TRUE(CheckObjectName("pets", kMaxJobName).ok());
  Status s = CheckObjectName("pets.v2", kMaxJobName);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("\"pets.v2\" must be a DNS-1035 label"), std::string::npos)
      << s.message();
  s = CheckObjectName(std::string(48, 'a'), kMaxJobName);
  EXPECT_NE(s.message().find("must be at most 47 characters"), std::string::npos) << s.message();
}

TEST(NamesTest, TypedParsesRefuseNamesThatMakeInvalidObjects) {
  const Json spec = {{"image", "petname:1"}, {"dataset", {{"path", "/data/pets.csv"}}}};
  Job job;
  Status s = JobFromJson({{"metadata", {{"name", "2pets"}}}, {"spec", spec}}, &job);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("job: metadata.name \"2pets\" must be a DNS-1035 label", 0), 0u)
      << s.message();
  EXPECT_TRUE(JobFromJson({{"metadata", {{"name", "pets"}}}, {"spec", spec}}, &job).ok());

  const Json sweep_spec = {
      {"template", spec},
      {"parameters", {{{"name", "training.learningRate"}, {"values", {0.001}}}}}};
  Sweep sw;
  s = SweepFromJson({{"metadata", {{"name", "grid.v2"}}}, {"spec", sweep_spec}}, &sw);
  EXPECT_EQ(s.message().rfind("sweep: metadata.name \"grid.v2\" must be a DNS-1035 label", 0), 0u)
      << s.message();
  s = SweepFromJson({{"metadata", {{"name", std::string(44, 'g')}}}, {"spec", sweep_spec}}, &sw);
  EXPECT_NE(s.message().find("at most 43 characters"), std::string::npos) << s.message();
  EXPECT_TRUE(SweepFromJson({{"metadata", {{"name", "grid"}}}, {"spec", sweep_spec}}, &sw).ok());
}

}  // namespace
}  // namespace petname::api
