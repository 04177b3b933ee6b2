#include "trainer/data/dataset.h"

#include <gtest/gtest.h>

#include <string>

#include "trainer/data/vocabulary.h"

namespace petname::data {
namespace {

std::string Row(const std::vector<uint8_t>& flat, size_t row, size_t window) {
  std::string s;
  for (size_t i = 0; i < window; ++i) s.push_back(kVocabulary[flat[row * window + i]]);
  return s;
}

TEST(VocabularyTest, LayoutAndNameCharacters) {
  EXPECT_EQ(kVocabulary.size(), static_cast<size_t>(kVocabularySize));
  EXPECT_EQ(CharIndex('*'), kPadIndex);
  EXPECT_EQ(CharIndex('+'), kStopIndex);
  EXPECT_EQ(CharIndex('a'), 2);
  EXPECT_EQ(CharIndex(' '), 30);
  EXPECT_EQ(CharIndex('A'), -1);
  EXPECT_TRUE(IsCleanName("mary-jane jr."));
  EXPECT_FALSE(IsCleanName("r2d2"));
  EXPECT_FALSE(IsCleanName("a+b"));
}

TEST(EncodeTest, SpotGivesExactlyTheRecipeRows) {
  Examples e;
  EncodeName("spot", 8, &e);
  ASSERT_EQ(e.count, 5u);
  const char* inputs[] = {"********", "*******s", "******sp", "*****spo", "****spot"};
  const char* targets[] = {"*******s", "******sp", "*****spo", "****spot", "***spot+"};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(Row(e.inputs, i, 8), inputs[i]);
    EXPECT_EQ(Row(e.targets, i, 8), targets[i]);
  }
}

TEST(EncodeTest, LongNamesKeepTheLastWindow) {
  Examples e;
  EncodeName("bartholomew", 8, &e);
  ASSERT_EQ(e.count, 12u);
  EXPECT_EQ(Row(e.inputs, 11, 8), "tholomew");
  EXPECT_EQ(Row(e.targets, 11, 8), "holomew+");
}

TEST(SplitTest, StableAndWholeNames) {
  std::vector<std::string> names = {"rex", "bella", "rex", "max", "lucy", "bella"};
  for (int i = 0; i < 200; ++i) names.push_back("n" + std::to_string(i % 10) + "abc"[i % 3]);
  for (std::string& n : names) {
    for (char& c : n) {
      if (c >= '0' && c <= '9') c = static_cast<char>('a' + (c - '0'));
    }
  }
  EncodeOptions o;
  o.validation_fraction = 0.3;
  Dataset d = BuildDataset(names, o);
  EXPECT_GT(d.validation.count, 0u);
  EXPECT_GT(d.train.count, 0u);
  for (const std::string& n : d.training_names) EXPECT_FALSE(InValidation(n, 0.3)) << n;
  EXPECT_EQ(d.distinct_names, d.training_names.size() + d.validation_distinct_names);
  EXPECT_FALSE(InValidation("rex", 0.0));
  EXPECT_TRUE(InValidation("rex", 1.0));
}

TEST(FingerprintTest, DependsOnNamesOrderAndParameters) {
  EncodeOptions o;
  std::string a = Fingerprint({"rex", "max"}, o);
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, Fingerprint({"rex", "max"}, o));
  EXPECT_NE(a, Fingerprint({"max", "rex"}, o));
  EXPECT_NE(a, Fingerprint({"rex", "max", "fido"}, o));
  o.validation_fraction = 0.1;
  EXPECT_NE(a, Fingerprint({"rex", "max"}, o));
}

}  // namespace
}  // namespace petname::data
