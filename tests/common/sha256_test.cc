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
