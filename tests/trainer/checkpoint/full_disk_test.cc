// The checkpoint store on a real, size-limited tmpfs that fills up: a failed
// write or commit leaves the store as it was (no staging directory, no new epoch, `latest`
// unchanged, the previous checkpoint valid), reports ENOSPC, and the next write succeeds once
// space returns. Also the writability probe on a read-only mount.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "tests/support/tmpfs.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/store.h"
#include "trainer/checkpoint/write_failure.h"

namespace petname::checkpoint {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kPage = 4096;

class FullDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (tmpfs_.path().empty()) GTEST_SKIP() << tmpfs_.error();
    root_ = tmpfs_.path() + "/store";
    fill_ = tmpfs_.path() + "/filler";
    ASSERT_TRUE(fs::create_directories(fill_));
  }

  // Stages epoch `epoch` with a model.pt of `bytes` bytes.
  Status Stage(int64_t epoch, int64_t bytes, CheckpointWriter* w) {
    PETNAME_RETURN_IF_ERROR(CheckpointWriter::Begin(root_, epoch, w, Owner{}, ""));
    return WriteFile(w->FilePath("model.pt"), std::string(static_cast<size_t>(bytes), 'w'));
  }

  Status Save(int64_t epoch, int64_t bytes) {
    CheckpointWriter w;
    PETNAME_RETURN_IF_ERROR(Stage(epoch, bytes, &w));
    return w.Commit(SampleManifest(epoch), 5);
  }

  // Fills the file system with one-page files until it is full.
  void FillUp() {
    for (int i = 0;; ++i) {
      Status st = WriteFile(fill_ + "/" + std::to_string(i), std::string(kPage, 'f'));
      if (!st.ok()) {
        ASSERT_EQ(st.os_error(), ENOSPC) << st.ToString();
        return;
      }
    }
  }

  // Frees `pages` pages of filler.
  void Free(int pages) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(fill_)) files.push_back(entry.path());
    ASSERT_GE(files.size(), static_cast<size_t>(pages));
    for (int i = 0; i < pages; ++i) fs::remove(files[static_cast<size_t>(i)]);
  }

  // The store holds exactly epoch-000001, `latest` names it, it verifies, and nothing is staged.
  void ExpectOnlyTheFirstCheckpoint() {
    EXPECT_EQ(ListCheckpoints(root_), std::vector<std::string>{"epoch-000001"});
    std::string latest;
    ASSERT_TRUE(ReadFile(root_ + "/latest", &latest).ok());
    EXPECT_EQ(latest, "epoch-000001\n");
    Manifest m;
    EXPECT_TRUE(VerifyCheckpoint(root_ + "/epoch-000001", &m, "").ok());
    for (const auto& entry : fs::directory_iterator(root_)) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "epoch-000001" || name == "latest") << name;
    }
  }

  petname::testing::Tmpfs tmpfs_{256 * kPage};
  std::string root_;
  std::string fill_;
};

TEST_F(FullDiskTest, FailedFileWriteLeavesTheStoreAsItWasUntilSpaceReturns) {
  ASSERT_TRUE(Save(1, 8 * kPage).ok());
  FillUp();
  Status st = Save(2, 8 * kPage);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.os_error(), ENOSPC) << st.ToString();
  EXPECT_STREQ(WriteFailureReason(st), "no_space");
  EXPECT_NE(st.message().find("model.pt"), std::string::npos) << st.message();
  ExpectOnlyTheFirstCheckpoint();
  const std::string line = DescribeWriteFailure(2, root_, st);
  EXPECT_EQ(line.rfind("checkpoint epoch 2 not saved (no_space, ENOSPC): ", 0), 0u) << line;
  EXPECT_NE(line.find("; keeping " + root_ + "/epoch-000001"), std::string::npos) << line;

  fs::remove_all(fill_);
  ASSERT_TRUE(Save(2, 8 * kPage).ok());
  EXPECT_EQ(ListCheckpoints(root_), (std::vector<std::string>{"epoch-000001", "epoch-000002"}));
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_, &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 2);
}

TEST_F(FullDiskTest, FailedManifestWriteRemovesTheStaging) {
  ASSERT_TRUE(Save(1, kPage).ok());
  CheckpointWriter w;
  ASSERT_TRUE(Stage(2, kPage, &w).ok());
  FillUp();
  Status st = w.Commit(SampleManifest(2), 5);
  EXPECT_EQ(st.os_error(), ENOSPC) << st.ToString();
  EXPECT_NE(st.message().find("manifest.json"), std::string::npos) << st.message();
  w = CheckpointWriter();  // a failed commit is abandoned like any unfinished writer
  ExpectOnlyTheFirstCheckpoint();
}

TEST_F(FullDiskTest, FailedLatestUpdateUnpublishesTheNewCheckpoint) {
  ASSERT_TRUE(Save(1, kPage).ok());
  CheckpointWriter w;
  ASSERT_TRUE(Stage(2, kPage, &w).ok());
  FillUp();
  Free(1);  // room for manifest.json, none for the new `latest`
  Status st = w.Commit(SampleManifest(2), 5);
  EXPECT_EQ(st.os_error(), ENOSPC) << st.ToString();
  EXPECT_NE(st.message().find("latest"), std::string::npos) << st.message();
  ExpectOnlyTheFirstCheckpoint();
}

TEST_F(FullDiskTest, ReadOnlyMountFailsTheProbeNamingTheDirectory) {
  ASSERT_TRUE(Save(1, kPage).ok());
  ASSERT_TRUE(tmpfs_.SetReadOnly(true)) << tmpfs_.error();
  Status st = CheckWritable(root_);
  EXPECT_EQ(st.os_error(), EROFS) << st.ToString();
  EXPECT_STREQ(WriteFailureReason(st), "read_only");
  EXPECT_NE(st.message().find(root_), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Read-only file system"), std::string::npos) << st.message();
  ASSERT_TRUE(tmpfs_.SetReadOnly(false)) << tmpfs_.error();
  EXPECT_TRUE(CheckWritable(root_).ok());
  ExpectOnlyTheFirstCheckpoint();
}

}  // namespace
}  // namespace petname::checkpoint
