#include "common/number_format.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace petname {
namespace {

TEST(NumberFormatTest, FixedDigitsRoundsAndNamesNonFiniteValues) {
  EXPECT_EQ(FixedDigits(1.234, 1), "1.2");
  EXPECT_EQ(FixedDigits(0.876, 2), "0.88");
  EXPECT_EQ(FixedDigits(14.6, 0), "15");
  EXPECT_EQ(FixedDigits(-0.25, 1), "-0.2");
  EXPECT_EQ(FixedDigits(std::nan(""), 1), "-");
  EXPECT_EQ(FixedDigits(std::numeric_limits<double>::infinity(), 2), "-");
}

}  // namespace
}  // namespace petname
