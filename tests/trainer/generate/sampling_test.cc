#include "trainer/generate/sampling.h"

#include <gtest/gtest.h>

#include "trainer/data/vocabulary.h"

namespace petname::generate {
namespace {

TEST(SamplingTest, NeverPadAndStopOnlyWhenAllowed) {
  std::vector<float> logits(data::kVocabularySize, -5.0f);
  logits[data::kPadIndex] = 50.0f;
  logits[data::kStopIndex] = 40.0f;
  logits[5] = 1.0f;
  for (double u : {0.0, 0.3, 0.999999}) {
    EXPECT_EQ(SampleIndex(logits, 1.0, true, u), data::kStopIndex);
    int i = SampleIndex(logits, 1.0, false, u);
    EXPECT_NE(i, data::kPadIndex);
    EXPECT_NE(i, data::kStopIndex);
  }
}

TEST(SamplingTest, FollowsTheDistribution) {
  std::vector<float> logits(data::kVocabularySize, -100.0f);
  logits[2] = 0.0f;
  logits[3] = 0.0f;  // two equally likely characters: u below 1/2 picks the first
  EXPECT_EQ(SampleIndex(logits, 1.0, true, 0.49), 2);
  EXPECT_EQ(SampleIndex(logits, 1.0, true, 0.51), 3);
  logits[3] = 1.0f;  // a low temperature makes the larger logit win almost surely
  EXPECT_EQ(SampleIndex(logits, 0.01, true, 0.999), 3);
}

TEST(RandomTest, DeterministicUniform) {
  Random a(9), b(9), c(10);
  double x = a.Uniform();
  EXPECT_EQ(x, b.Uniform());
  EXPECT_NE(x, c.Uniform());
  for (int i = 0; i < 1000; ++i) {
    double u = a.Uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(TitleCaseTest, Words) {
  EXPECT_EQ(TitleCase("mary-jane jr."), "Mary-Jane Jr.");
  EXPECT_EQ(TitleCase("spot"), "Spot");
  EXPECT_EQ(TitleCase(""), "");
}

}  // namespace
}  // namespace petname::generate
