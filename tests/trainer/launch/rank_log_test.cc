// A rank's log files on a real filesystem: modes, symlinks refused, rotation, appending and
// pruning of old attempts.
#include "trainer/launch/rank_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.h"
#include "trainer/launch/log_layout.h"

namespace petname::launch {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t Mode(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(RankLogTest, CreatesPrivateDirectoriesAndFilesUnderAMissingCheckpointDir) {
  testing::TempDir tmp;
  const fs::path logs = tmp.fs_path() / "ckpt" / "logs";
  std::unique_ptr<RankLog> log;
  ASSERT_TRUE(RankLog::Open(logs.string(), 2, 1, LogLimits{}, &log).ok());
  log->Write("hello\n");
  log->Write("world\n");
  const fs::path head = logs / "attempt-2" / "rank-1.log";
  EXPECT_EQ(log->head_path(), head.string());
  EXPECT_EQ(Slurp(head), "hello\nworld\n");
  EXPECT_EQ(Mode(logs), 0700u);
  EXPECT_EQ(Mode(logs / "attempt-2"), 0700u);
  EXPECT_EQ(Mode(head), 0600u);
  EXPECT_EQ(ListAttempts(logs.string()), std::vector<int>{2});
  EXPECT_EQ(ListRanks((logs / "attempt-2").string()), std::vector<int>{1});
}

TEST(RankLogTest, KeepsTheHeadAndTheLastSegments) {
  testing::TempDir tmp;
  std::unique_ptr<RankLog> log;
  ASSERT_TRUE(RankLog::Open(tmp.path(), 0, 0, LogLimits{8, 8, 16}, &log).ok());
  for (const char* line : {"aaa\n", "bbb\n", "ccc\n", "ddd\n", "eee\n", "fff\n", "ggg\n"}) {
    log->Write(line);
  }
  ASSERT_TRUE(log->error().ok()) << log->error().message();
  const fs::path dir = tmp.fs_path() / "attempt-0";
  EXPECT_EQ(Slurp(dir / "rank-0.log"), "aaa\nbbb\n");
  EXPECT_EQ(Slurp(dir / "rank-0.tail.1.log"), "eee\nfff\n");
  EXPECT_EQ(Slurp(dir / "rank-0.tail.log"), "ggg\n");
  EXPECT_EQ(Mode(dir / "rank-0.tail.log"), 0600u);
  log.reset();

  // The same rank and attempt again (a resumed job) appends, and goes on rotating.
  ASSERT_TRUE(RankLog::Open(tmp.path(), 0, 0, LogLimits{8, 8, 16}, &log).ok());
  log->Write("hhh\n");
  log->Write("iii\n");
  EXPECT_EQ(Slurp(dir / "rank-0.log"), "aaa\nbbb\n");
  EXPECT_EQ(Slurp(dir / "rank-0.tail.1.log"), "ggg\nhhh\n");
  EXPECT_EQ(Slurp(dir / "rank-0.tail.log"), "iii\n");
}

TEST(RankLogTest, SymlinksAndOtherFilesAreRefused) {
  testing::TempDir tmp;
  const fs::path outside = tmp.fs_path() / "outside";
  fs::create_directory(outside);
  std::ofstream(outside / "target") << "keep\n";
  std::unique_ptr<RankLog> log;

  fs::create_directory_symlink(outside, tmp.fs_path() / "linked-logs");
  Status st = RankLog::Open((tmp.fs_path() / "linked-logs").string(), 0, 0, LogLimits{}, &log);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is a symbolic link"), std::string::npos) << st.message();

  const fs::path logs = tmp.fs_path() / "logs";
  fs::create_directories(logs);
  fs::create_directory_symlink(outside, logs / "attempt-0");
  EXPECT_FALSE(RankLog::Open(logs.string(), 0, 0, LogLimits{}, &log).ok());

  fs::create_directories(logs / "attempt-1");
  fs::create_symlink(outside / "target", logs / "attempt-1" / "rank-0.log");
  EXPECT_FALSE(RankLog::Open(logs.string(), 1, 0, LogLimits{}, &log).ok());
  EXPECT_EQ(Slurp(outside / "target"), "keep\n");

  fs::create_directories(logs / "attempt-2" / "rank-0.log");
  EXPECT_FALSE(RankLog::Open(logs.string(), 2, 0, LogLimits{}, &log).ok());
  // A FIFO in its place would block an open for writing: refused at once.
  fs::create_directories(logs / "attempt-3");
  ASSERT_EQ(::mkfifo((logs / "attempt-3" / "rank-0.log").c_str(), 0600), 0);
  EXPECT_FALSE(RankLog::Open(logs.string(), 3, 0, LogLimits{}, &log).ok());
}

TEST(RankLogTest, PruningKeepsTheNewestAttempts) {
  testing::TempDir tmp;
  for (int a = 0; a < 12; ++a) {
    std::unique_ptr<RankLog> log;
    ASSERT_TRUE(RankLog::Open(tmp.path(), a, 0, LogLimits{}, &log).ok());
  }
  fs::create_directory(tmp.fs_path() / "not-an-attempt");
  ASSERT_TRUE(PruneAttempts(tmp.path(), 11).ok());
  EXPECT_EQ(ListAttempts(tmp.path()), (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_TRUE(fs::exists(tmp.fs_path() / "not-an-attempt"));
}

}  // namespace
}  // namespace petname::launch
