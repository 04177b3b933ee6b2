#include "common/fingerprint.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

TEST(FingerprintTest, TextIsInNameOrderAndParsesBack) {
  const Fingerprint f = {{"seed", "42"}, {"lr", "0.001"}, {"data", "ab12"}};
  EXPECT_EQ(FingerprintText(f), "data=ab12\nlr=0.001\nseed=42\n");
  Fingerprint back;
  ASSERT_TRUE(ParseFingerprintText(FingerprintText(f), &back).ok());
  EXPECT_EQ(back, f);
  EXPECT_EQ(FingerprintDigest(back), FingerprintDigest(f));
  EXPECT_NE(FingerprintDigest(f), FingerprintDigest({{"seed", "43"}, {"lr", "0.001"}}));
}

TEST(FingerprintTest, RejectsMalformedText) {
  Fingerprint f;
  EXPECT_EQ(ParseFingerprintText("lr\n", &f).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseFingerprintText("=1\n", &f).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseFingerprintText("seed=1\nlr=2\n", &f).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseFingerprintText("lr=1\nlr=2\n", &f).code(), Status::Code::kCorruption);
  EXPECT_TRUE(ParseFingerprintText("", &f).ok());
  EXPECT_TRUE(f.empty());
}

TEST(FingerprintTest, FirstDifferenceNamesTheSettingAndHonoursIgnore) {
  const Fingerprint a = {{"data", "x"}, {"lr", "0.001"}, {"seed", "42"}};
  Fingerprint b = a;
  EXPECT_EQ(FirstDifference(a, b), "");
  b["lr"] = "0.002";
  EXPECT_EQ(FirstDifference(a, b), "lr");
  b["data"] = "y";
  EXPECT_EQ(FirstDifference(a, b), "data");
  EXPECT_EQ(FirstDifference(a, b, {"data"}), "lr");
  EXPECT_EQ(FirstDifference(a, {{"data", "x"}, {"lr", "0.001"}}), "seed");
  EXPECT_EQ(FirstDifference({{"data", "x"}}, {{"data", "x"}, {"epochs", "3"}}), "epochs");
  EXPECT_EQ(DescribeSetting(a, "lr"), "lr=0.001");
  EXPECT_EQ(DescribeSetting(a, "epochs"), "no epochs");
}

}  // namespace
}  // namespace petname
