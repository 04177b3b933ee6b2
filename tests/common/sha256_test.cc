#include "common/sha256.h"

#include <gtest/gtest.h>

#include "common/file_util.h"

namespace petname {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  Sha256 h;
  h.Update("a");
  h.Update("bc");
  EXPECT_EQ(h.HexDigest(), Sha256Hex("abc"));
}

TEST(Sha256Test, HmacKnownVectors) {
  // RFC 4231, test cases 1 and 2.
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Sha256Test, ConstantTimeEquality) {
  EXPECT_TRUE(EqualInConstantTime("abc", "abc"));
  EXPECT_FALSE(EqualInConstantTime("abc", "abd"));
  EXPECT_FALSE(EqualInConstantTime("abc", "abcd"));
}

TEST(Sha256Test, RandomHexHasTheLengthAndDiffers) {
  std::string a;
  std::string b;
  ASSERT_TRUE(RandomHex(16, &a).ok());
  ASSERT_TRUE(RandomHex(16, &b).ok());
  EXPECT_EQ(a.size(), 32U);
  EXPECT_NE(a, b);
}

TEST(Sha256Test, FileDigest) {
  std::string path = ::testing::TempDir() + "/petname-sha256-test.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "abc").ok());
  std::string hex;
  ASSERT_TRUE(Sha256File(path, &hex).ok());
  EXPECT_EQ(hex, Sha256Hex("abc"));
  EXPECT_FALSE(Sha256File(path + ".missing", &hex).ok());
}

}  // namespace
}  // namespace petname
