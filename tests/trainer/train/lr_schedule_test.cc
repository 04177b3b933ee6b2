#include "trainer/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace petname::train {
namespace {

TEST(LrScheduleTest, ConstantWithoutWarmupIsTheBaseRate) {
  LrSchedule s;
  s.base = 0.003;
  s.total_steps = 10;
  for (int64_t step : {0, 1, 9, 10, 100}) EXPECT_DOUBLE_EQ(LearningRateAt(s, step), 0.003);
}

TEST(LrScheduleTest, WarmupRisesLinearlyToTheBaseRate) {
  LrSchedule s;
  s.base = 0.004;
  s.warmup_steps = 4;
  s.total_steps = 100;
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 0), 0.001);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 1), 0.002);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 3), 0.004);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 4), 0.004);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 50), 0.004);
}

TEST(LrScheduleTest, CosineDecaysFromBaseTowardsZeroAfterWarmup) {
  LrSchedule s;
  s.base = 0.01;
  s.warmup_steps = 2;
  s.decay = LrDecay::kCosine;
  s.total_steps = 6;  // cosine over steps 2..5
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 1), 0.01);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 2), 0.01);
  EXPECT_NEAR(LearningRateAt(s, 3), 0.01 * 0.5 * (1 + std::cos(M_PI / 4)), 1e-15);
  EXPECT_NEAR(LearningRateAt(s, 4), 0.005, 1e-15);
  const double last = LearningRateAt(s, 5);
  EXPECT_GT(last, 0.0);
  EXPECT_LT(last, LearningRateAt(s, 4));
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 6), last);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 1000), last);
}

TEST(LrScheduleTest, DegenerateSchedulesStayFinite) {
  LrSchedule s;
  s.decay = LrDecay::kCosine;
  s.total_steps = 0;
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 0), s.base);
  s.warmup_steps = 5;
  s.total_steps = 3;  // warm-up longer than the run
  EXPECT_DOUBLE_EQ(LearningRateAt(s, 2), s.base * 3 / 5);
  EXPECT_DOUBLE_EQ(LearningRateAt(s, -1), s.base / 5);
}

TEST(LrScheduleTest, ParsesNames) {
  LrDecay d = LrDecay::kConstant;
  EXPECT_TRUE(ParseLrDecay("cosine", &d));
  EXPECT_EQ(d, LrDecay::kCosine);
  EXPECT_STREQ(LrDecayName(d), "cosine");
  EXPECT_TRUE(ParseLrDecay("constant", &d));
  EXPECT_EQ(d, LrDecay::kConstant);
  EXPECT_FALSE(ParseLrDecay("linear", &d));
}

}  // namespace
}  // namespace petname::train
