// YAML to JSON: typed scalars, aliases copied within their budget, and the hostile files of
// tests/trainer/sweep/hostile (an alias cycle, a billion laughs) refused with their line.
#include "trainer/sweep/yaml_json.h"

#include <gtest/gtest.h>

#include "common/file_util.h"

#include "tests/support/test_paths.h"

namespace petname::sweep {
namespace {

using Json = nlohmann::json;

std::string Hostile(const std::string& name) {
  std::string text;
  EXPECT_TRUE(ReadFile(testing::SourcePath("tests/trainer/sweep/hostile/") + name, &text).ok());
  return text;
}

TEST(YamlToJsonTest, ScalarsAreTypedAsKubernetesReadsThem) {
  Json j;
  ASSERT_TRUE(YamlToJson("a: 1\nb: '1'\nc: 1.5\nd: true\ne: ~\nf: 0x1F\ng: nan\nh: text\n"
                         "1: key\nnull: [x, \"y\"]\n",
                         kYamlAliasBudget, &j)
                  .ok());
  EXPECT_EQ(j, Json::parse(R"({"a": 1, "b": "1", "c": 1.5, "d": true, "e": null, "f": "0x1F",
                               "g": "nan", "h": "text", "1": "key", "null": ["x", "y"]})"));
  ASSERT_TRUE(YamlToJson("", kYamlAliasBudget, &j).ok());
  EXPECT_TRUE(j.is_null());
  ASSERT_TRUE(YamlToJson("- 1\n- [2, {x: 3}]\n", kYamlAliasBudget, &j).ok());
  EXPECT_EQ(j, Json::parse(R"([1, [2, {"x": 3}]])"));
}

TEST(YamlToJsonTest, AliasesAreCopiesOfTheirAnchoredNode) {
  Json j;
  ASSERT_TRUE(
      YamlToJson("t: &t {lr: 0.1, s: [1, 2]}\nu: *t\nk: &k name\nv: *k\n", kYamlAliasBudget, &j)
          .ok());
  EXPECT_EQ(j["u"], j["t"]);
  EXPECT_EQ(j["v"], "name");
}

TEST(YamlToJsonTest, AliasesCountAgainstTheBudgetByTheValuesTheyCopy) {
  const std::string text = "a: &a [1, 2]\nb: *a\n";  // *a copies 3 values: the list and two
  Json j;
  EXPECT_TRUE(YamlToJson(text, 3, &j).ok());
  const Status over = YamlToJson(text, 2, &j);
  EXPECT_EQ(over.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(over.message(), "YAML error at line 2: aliases expand to more than 2 values");
}

TEST(YamlToJsonTest, ABillionLaughsIsRefusedAtTheBudget) {
  Json j;
  const Status s = YamlToJson(Hostile("billion_laughs.yaml"), kYamlAliasBudget, &j);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "YAML error at line 6: aliases expand to more than 10000 values");
}

TEST(YamlToJsonTest, AnAliasInsideItsOwnNodeIsRefused) {
  Json j;
  const Status s = YamlToJson(Hostile("alias_cycle.yaml"), kYamlAliasBudget, &j);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "YAML error at line 1: an alias inside the node it refers to (a cycle)");
  EXPECT_EQ(YamlToJson("a: &m {b: *m}\n", kYamlAliasBudget, &j).code(),
            Status::Code::kInvalidArgument);
}

TEST(YamlToJsonTest, AKeyThatIsNotAScalarIsRefused) {
  Json j;
  EXPECT_EQ(YamlToJson("? [a, b]\n: 1\n", kYamlAliasBudget, &j).message(),
            "YAML error at line 1: a mapping key must be a scalar");
  EXPECT_EQ(YamlToJson("a: &a x\n*a : 1\n", kYamlAliasBudget, &j).message(),
            "YAML error at line 2: a mapping key must not be an alias");
  EXPECT_EQ(YamlToJson("a: [1, 2\n", kYamlAliasBudget, &j).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace petname::sweep
