#include "operator/kube/label_selector.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

LabelSelector Parse(const std::string& json) {
  LabelSelector s;
  const Status st = ParseLabelSelector(nlohmann::json::parse(json), &s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

TEST(LabelSelectorTest, EveryRequirementMustHold) {
  const LabelSelector s = Parse(R"({"matchLabels": {"team": "a"}, "matchExpressions": [
    {"key": "tier", "operator": "In", "values": ["gold", "silver"]},
    {"key": "env", "operator": "NotIn", "values": ["prod"]},
    {"key": "owner", "operator": "Exists"},
    {"key": "legacy", "operator": "DoesNotExist"}]})");
  const std::map<std::string, std::string> ok = {{"team", "a"}, {"tier", "gold"}, {"owner", "x"}};
  EXPECT_TRUE(Matches(s, ok));
  auto with = [&](const std::string& k, const std::string& v) {
    std::map<std::string, std::string> l = ok;
    l[k] = v;
    return l;
  };
  EXPECT_FALSE(Matches(s, with("team", "b")));
  EXPECT_FALSE(Matches(s, with("tier", "bronze")));
  EXPECT_TRUE(Matches(s, with("env", "dev")));
  EXPECT_FALSE(Matches(s, with("env", "prod")));
  EXPECT_FALSE(Matches(s, with("legacy", "")));
  std::map<std::string, std::string> no_owner = ok;
  no_owner.erase("owner");
  EXPECT_FALSE(Matches(s, no_owner));
  EXPECT_EQ(s.Keys(), (std::set<std::string>{"team", "tier", "env", "owner", "legacy"}));
}

TEST(LabelSelectorTest, EmptyMatchesEverything) {
  EXPECT_TRUE(Matches(Parse("{}"), {}));
  EXPECT_TRUE(Matches(Parse("null"), {{"a", "b"}}));
}

TEST(LabelSelectorTest, MalformedSelectorsAreNamed) {
  for (const char* bad :
       {R"({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})",
        R"({"matchExpressions": [{"key": "a", "operator": "In"}]})",
        R"({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})",
        R"({"matchExpressions": [{"operator": "Exists"}]})", R"({"matchLabels": {"a": 1}})",
        R"({"matchLabels": []})", R"([])"}) {
    LabelSelector s;
    const Status st = ParseLabelSelector(nlohmann::json::parse(bad), &s);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace petname::kube
