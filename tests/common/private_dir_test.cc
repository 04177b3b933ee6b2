#include "common/private_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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

// A directory that exists at the path is used only when it is this user's and nobody else may
// write it: someone who can write it can plant what the trainer reads back.
TEST(PrivateDirTest, RefusesAnExistingDirectoryOthersMayWrite) {
  petname::testing::TempDir tmp;
  const std::string job = tmp.Join("job");
  ASSERT_EQ(::mkdir(job.c_str(), 0700), 0);
  for (const mode_t mode : {0777, 0773, 0757}) {
    ASSERT_EQ(::chmod(job.c_str(), mode), 0);
    EXPECT_NE(CreatePrivateDirectory(job, "checkpoint directory")
                  .message()
                  .find(" is writable by others"),
              std::string::npos)
        << std::oct << mode;
  }
  ASSERT_EQ(::chmod(job.c_str(), 02770), 0);  // as a kubelet's fsGroup leaves a volume
  EXPECT_EQ(CreatePrivateDirectory(job + "/", "checkpoint directory").message(),
            "checkpoint directory " + job +
                " is writable by its group (mode 2770); refusing to use it (chmod go-w " + job +
                ")");
  ASSERT_EQ(::chmod(job.c_str(), 0755), 0);
  EXPECT_TRUE(CreatePrivateDirectory(job, "checkpoint directory").ok());
  EXPECT_EQ(ModeOf(job), 0755u) << "an existing directory keeps its mode";
  if (::chown(job.c_str(), 12345, static_cast<gid_t>(-1)) != 0) {
    GTEST_SKIP() << "cannot give a directory to another user here";
  }
  EXPECT_EQ(CreatePrivateDirectory(job, "checkpoint directory").message(),
            "checkpoint directory " + job + " belongs to uid 12345, not to this process's uid " +
                std::to_string(::geteuid()) + "; refusing to use it");
}

TEST(PrivateDirTest, TheRuleOnStat) {
  struct stat st {};
  st.st_uid = 1000;
  st.st_mode = S_IFDIR | 0700;
  EXPECT_TRUE(CheckPrivateDirectoryStat("d", "/p", st, 1000).ok());
  EXPECT_EQ(CheckPrivateDirectoryStat("d", "/p", st, 1001).code(),
            Status::Code::kFailedPrecondition);
  st.st_mode = S_IFDIR | 0750;
  EXPECT_TRUE(CheckPrivateDirectoryStat("d", "/p", st, 1000).ok()) << "others may read";
  st.st_mode = S_IFDIR | 0720;
  EXPECT_EQ(CheckPrivateDirectoryStat("d", "/p", st, 1000).message(),
            "d /p is writable by its group (mode 0720); refusing to use it (chmod go-w /p)");
}

// The mode of a directory is set through its own descriptor; a symlink is not followed.
TEST(PrivateDirTest, SetsTheModeThroughTheDirectoryNotASymlink) {
  petname::testing::TempDir tmp;
  const std::string dir = tmp.Join("staging");
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  ASSERT_TRUE(SetPrivateDirectoryMode(dir).ok());
  EXPECT_EQ(ModeOf(dir), 0700u);
  ASSERT_EQ(::mkdir(tmp.Join("target").c_str(), 0755), 0);
  fs::create_directory_symlink(tmp.Join("target"), tmp.Join("link"));
  EXPECT_EQ(SetPrivateDirectoryMode(tmp.Join("link")).code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(ModeOf(tmp.Join("target")), 0755u);
}

}  // namespace
}  // namespace petname
