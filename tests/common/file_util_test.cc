#include "common/file_util.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace petname {
namespace {

namespace fs = std::filesystem;

class FileUtilTest : public ::testing::Test {
 protected:
  petname::testing::TempDir tmp_;
  fs::path dir_ = tmp_.fs_path();
};

TEST_F(FileUtilTest, WritesAndReplacesAtomically) {
  std::string path = (dir_ / "a.txt").string();
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  std::string got;
  ASSERT_TRUE(ReadFile(path, &got).ok());
  EXPECT_EQ(got, "second");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1) << "no temporary file may be left behind";
}

TEST_F(FileUtilTest, FailsCleanlyInMissingDirectory) {
  Status st = WriteFileAtomically((dir_ / "missing" / "a.txt").string(), "x");
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("missing"), std::string::npos);
}

TEST_F(FileUtilTest, ReadMissingFileIsIoError) {
  std::string got;
  EXPECT_EQ(ReadFile((dir_ / "nope").string(), &got).code(), Status::Code::kIoError);
}

}  // namespace
}  // namespace petname
