#include "common/private_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"

namespace petname {
namespace {

namespace fs = std::filesystem;

// Sets the umask for the scope of a test.
class Umask {
 public:
  explicit Umask(mode_t mask) : old_(::umask(mask)) {}
  ~Umask() { ::umask(old_); }
  Umask(const Umask&) = delete;
  Umask& operator=(const Umask&) = delete;

 private:
  mode_t old_;
};

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(PrivateDirTest, CreatesEveryMissingDirectory0700WhateverTheUmask) {
  petname::testing::TempDir tmp;
  const Umask open_umask(0);
  const std::string job = tmp.Join("claim/ns/job");
  ASSERT_TRUE(CreatePrivateDirectory(job, "checkpoint directory").ok());
  EXPECT_EQ(ModeOf(tmp.Join("claim")), 0700u);
  EXPECT_EQ(ModeOf(tmp.Join("claim/ns")), 0700u);
  EXPECT_EQ(ModeOf(job), 0700u);
  EXPECT_TRUE(CreatePrivateDirectory(job + "/", "checkpoint directory").ok()) << "exists: fine";

  ASSERT_TRUE(WritePrivateFile(job + "/names.txt", "Rex\n").ok());
  EXPECT_EQ(ModeOf(job + "/names.txt"), 0600u);
  ASSERT_TRUE(WriteFileAtomically(job + "/latest", "epoch-000001\n").ok());
  EXPECT_EQ(ModeOf(job + "/latest"), 0600u);
}

// A symlink planted at the job directory's path is refused with one message naming it, and
// nothing is created where it points.
TEST(PrivateDirTest, RefusesASymlinkAtThePath) {
  petname::testing::TempDir tmp;
  fs::create_directory(tmp.Join("elsewhere"));
  fs::create_directory_symlink(tmp.Join("elsewhere"), tmp.Join("job"));
  Status st = CreatePrivateDirectory(tmp.Join("job"), "checkpoint directory");
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(), "checkpoint directory " + tmp.Join("job") +
                              " is a symbolic link; refusing to write through it");
  fs::create_directory_symlink(tmp.Join("elsewhere"), tmp.Join("ns"));
  EXPECT_TRUE(CreatePrivateDirectory(tmp.Join("ns/job"), "d").ok())
      << "an existing parent that is a symlink is the user's";
  fs::create_symlink(tmp.Join("nowhere"), tmp.Join("dangling"));
  EXPECT_EQ(CreatePrivateDirectory(tmp.Join("dangling"), "d").code(),
            Status::Code::kFailedPrecondition);
  EXPECT_FALSE(fs::exists(tmp.Join("nowhere")));
  std::ofstream(tmp.Join("file")) << "x";
  EXPECT_EQ(CreatePrivateDirectory(tmp.Join("file"), "d").message(),
            "d " + tmp.Join("file") + " is not a directory");
}

}  // namespace
}  // namespace petname
