#include "common/untrusted_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace petname {
namespace {

namespace fs = std::filesystem;

UntrustedFileRules Rules(int64_t max_bytes) {
  UntrustedFileRules rules;
  rules.max_bytes = max_bytes;
  rules.what = "test file";
  return rules;
}

class UntrustedFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = tmp_.Join(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  petname::testing::TempDir tmp_;
};

TEST(UntrustedFileKindTest, OnlyRegularFilesWithinTheCap) {
  const UntrustedFileRules rules = Rules(10);
  EXPECT_TRUE(CheckUntrustedKind("p", S_IFREG | 0600, 10, rules).ok());
  EXPECT_EQ(CheckUntrustedKind("p", S_IFREG | 0600, 11, rules).message(),
            "test file p has 11 bytes, more than 10");
  EXPECT_EQ(CheckUntrustedKind("p", S_IFIFO | 0600, 0, rules).message(),
            "test file p is not a regular file (a FIFO, device or socket)");
  EXPECT_EQ(CheckUntrustedKind("p", S_IFCHR | 0666, 0, rules).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckUntrustedKind("p", S_IFSOCK | 0666, 0, rules).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckUntrustedKind("p", S_IFDIR | 0700, 0, rules).message(),
            "test file p is a directory, not a file");
  EXPECT_EQ(CheckUntrustedKind("p", S_IFLNK | 0777, 0, rules).message(),
            "test file p is a symbolic link, not a file");
  UntrustedFileRules named = rules;
  named.limit = "--max-x";
  EXPECT_EQ(CheckUntrustedKind("p", S_IFREG, 11, named).message(),
            "test file p has 11 bytes, more than --max-x 10");
}

TEST(UntrustedFileKindTest, PlainRelativePaths) {
  for (const char* good : {"a", "manifest.json", "epoch-000001/model.pt", "a/b/c", "..a", "a.."}) {
    EXPECT_TRUE(IsPlainRelativePath(good)) << good;
  }
  for (const char* bad :
       {"", "/", "/etc/passwd", "..", ".", "a/../b", "./a", "a/.", "a//b", "a/"}) {
    EXPECT_FALSE(IsPlainRelativePath(bad)) << bad;
  }
}

TEST_F(UntrustedFileTest, ReadsARegularFileAndFollowsAUserNamedSymlink) {
  const std::string path = Write("a.txt", "hello");
  fs::create_symlink(path, tmp_.Join("link"));
  std::string got;
  ASSERT_TRUE(ReadUntrustedFile(tmp_.Join("link"), Rules(5), &got).ok());
  EXPECT_EQ(got, "hello");
  EXPECT_EQ(ReadUntrustedFile(path, Rules(4), &got).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ReadUntrustedFile(tmp_.Join("none"), Rules(4), &got).code(), Status::Code::kNotFound);
}

// A FIFO with no writer is refused at once instead of blocking the reader for ever; so are
// devices, directly or through a symlink.
TEST_F(UntrustedFileTest, FifoAndDevicesAreRefused) {
  const std::string fifo = tmp_.Join("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", tmp_.Join("zero"));
  std::string got;
  for (const std::string& path : {fifo, tmp_.Join("zero"), std::string("/dev/zero")}) {
    Status st = ReadUntrustedFile(path, Rules(1 << 20), &got);
    EXPECT_EQ(st.message(),
              "test file " + path + " is not a regular file (a FIFO, device or socket)");
  }
  Status in = ReadUntrustedFileIn(tmp_.path(), "fifo", Rules(1 << 20), &got);
  EXPECT_EQ(in.message(),
            "test file " + fifo + " is not a regular file (a FIFO, device or socket)");
}

TEST_F(UntrustedFileTest, InsideARootNoSymlinkAndNoDotDot) {
  fs::create_directories(tmp_.Join("root/sub"));
  Write("root/sub/f", "inside");
  Write("outside", "secret");
  std::string got;
  ASSERT_TRUE(ReadUntrustedFileIn(tmp_.Join("root"), "sub/f", Rules(100), &got).ok());
  EXPECT_EQ(got, "inside");

  fs::create_symlink(tmp_.Join("outside"), tmp_.Join("root/link"));
  Status st = ReadUntrustedFileIn(tmp_.Join("root"), "link", Rules(100), &got);
  EXPECT_EQ(st.message(),
            "test file " + tmp_.Join("root/link") + " is a symbolic link, not a file");
  fs::create_symlink("/dev/zero", tmp_.Join("root/zero"));
  EXPECT_EQ(ReadUntrustedFileIn(tmp_.Join("root"), "zero", Rules(100), &got).code(),
            Status::Code::kInvalidArgument);
  fs::create_directory_symlink(tmp_.path(), tmp_.Join("root/up"));
  EXPECT_EQ(ReadUntrustedFileIn(tmp_.Join("root"), "up/outside", Rules(100), &got).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ReadUntrustedFileIn(tmp_.Join("root"), "../outside", Rules(100), &got).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ReadUntrustedFileIn(tmp_.Join("root"), tmp_.Join("outside"), Rules(100), &got).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(got, "inside");
}

// Streamed, a file arrives in chunks of at most 64 KiB that add up to it, under the same rules.
TEST_F(UntrustedFileTest, StreamedInChunksUnderTheSameRules) {
  fs::create_directories(tmp_.Join("root"));
  std::string text;
  for (int i = 0; i < 40000; ++i) text += std::to_string(i);
  Write("root/big", text);
  std::string got;
  size_t chunks = 0;
  const auto sink = [&](std::string_view chunk) {
    EXPECT_LE(chunk.size(), size_t{1} << 16);
    got.append(chunk);
    ++chunks;
  };
  ASSERT_TRUE(StreamUntrustedFileIn(tmp_.Join("root"), "big", Rules(1 << 20), sink).ok());
  EXPECT_EQ(got, text);
  EXPECT_GT(chunks, 1u);
  EXPECT_EQ(StreamUntrustedFileIn(tmp_.Join("root"), "big", Rules(100), sink).message(),
            "test file " + tmp_.Join("root/big") + " has " + std::to_string(text.size()) +
                " bytes, more than 100");
  fs::create_symlink("/dev/zero", tmp_.Join("root/zero"));
  EXPECT_EQ(StreamUntrustedFileIn(tmp_.Join("root"), "zero", Rules(100), sink).code(),
            Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace petname
