#include "trainer/checkpoint/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"
#include "tests/trainer/checkpoint/sample_manifest.h"

namespace petname::checkpoint {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  Status Save(int64_t epoch, int keep) {
    CheckpointWriter w;
    PETNAME_RETURN_IF_ERROR(CheckpointWriter::Begin(root_.string(), epoch, &w, Owner{}, ""));
    std::ofstream(w.FilePath("model.pt")) << "weights of epoch " << epoch;
    return w.Commit(SampleManifest(epoch), keep);
  }

  std::string Latest() {
    std::string s;
    EXPECT_TRUE(ReadFile((root_ / "latest").string(), &s).ok());
    return s;
  }

  petname::testing::TempDir tmp_;
  fs::path root_ = tmp_.fs_path() / "store";
};

TEST(StoreNamesTest, EpochDirNames) {
  EXPECT_EQ(EpochDirName(3), "epoch-000003");
  int64_t e = 0;
  EXPECT_TRUE(ParseEpochDirName("epoch-000042", &e));
  EXPECT_EQ(e, 42);
  EXPECT_FALSE(ParseEpochDirName("epoch-42", &e));
  EXPECT_FALSE(ParseEpochDirName(".staging-epoch-000042-abc", &e));
  EXPECT_FALSE(ParseEpochDirName("epoch-00004x", &e));
  EXPECT_FALSE(ParseEpochDirName("epoch-99999999999999999999", &e));  // beyond int64: no throw
  EXPECT_FALSE(ParseEpochDirName("epoch-0000000000000000000042", &e));
}

TEST(StoreNamesTest, Retention) {
  std::vector<std::string> names = {"epoch-000001", "epoch-000002", "epoch-000003"};
  EXPECT_EQ(DirsBeyondKeep(names, 2), std::vector<std::string>{"epoch-000001"});
  EXPECT_TRUE(DirsBeyondKeep(names, 3).empty());
  EXPECT_EQ(DirsBeyondKeep(names, 0).size(), 3u);
}

TEST_F(StoreTest, CommitPublishesVerifiesAndKeepsNewest) {
  for (int64_t e = 1; e <= 4; ++e) ASSERT_TRUE(Save(e, 2).ok());
  EXPECT_EQ(ListCheckpoints(root_.string()),
            (std::vector<std::string>{"epoch-000003", "epoch-000004"}));
  EXPECT_EQ(Latest(), "epoch-000004\n");
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_.string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 4);
  EXPECT_EQ(m.files.count("model.pt"), 1u);
  EXPECT_TRUE(skipped.empty());
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().find(".staging"), std::string::npos);
  }
}

TEST_F(StoreTest, DamagedNewestFallsBackToThePrevious) {
  ASSERT_TRUE(Save(1, 5).ok());
  ASSERT_TRUE(Save(2, 5).ok());
  std::ofstream(root_ / "epoch-000002" / "model.pt", std::ios::app) << "x";
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_.string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 1);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("checksum"), std::string::npos);

  fs::resize_file(root_ / "epoch-000001" / "manifest.json", 10);
  Status st = FindNewestValid(root_.string(), &skipped, &dir, &m, "");
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
}

TEST_F(StoreTest, AbandonedWriterLeavesNothing) {
  ASSERT_TRUE(Save(1, 5).ok());
  {
    CheckpointWriter w;
    ASSERT_TRUE(CheckpointWriter::Begin(root_.string(), 2, &w, Owner{}, "").ok());
    std::ofstream(w.FilePath("model.pt")) << "half";
  }
  EXPECT_EQ(ListCheckpoints(root_.string()), std::vector<std::string>{"epoch-000001"});
  EXPECT_EQ(std::distance(fs::directory_iterator(root_), fs::directory_iterator()), 2);
}

// A directory whose name is not exactly an epoch number is no checkpoint, however long.
TEST_F(StoreTest, OverlongEpochNamesAreIgnored) {
  ASSERT_TRUE(Save(1, 5).ok());
  fs::create_directories(root_ / "epoch-99999999999999999999");
  EXPECT_EQ(ListCheckpoints(root_.string()), std::vector<std::string>{"epoch-000001"});
}

// A writer replacing epoch 2 (a preemption checkpoint of epoch 3 is saved as epoch 2) killed
// between its two renames: epoch-000002 has been moved aside as .replaced and the new one is
// still staged. The next writer puts the moved-aside checkpoint back instead of deleting it.
TEST_F(StoreTest, CheckpointMovedAsideByAKilledWriterIsRecovered) {
  ASSERT_TRUE(Save(1, 5).ok());
  ASSERT_TRUE(Save(2, 5).ok());
  fs::rename(root_ / "epoch-000002", root_ / ".staging-epoch-000002-Ab12Cd.replaced");
  fs::create_directory(root_ / ".staging-epoch-000002-Ab12Cd");
  std::ofstream(root_ / ".staging-epoch-000002-Ab12Cd" / "model.pt") << "new weights";
  ASSERT_TRUE(CheckWritable(root_.string()).ok());
  EXPECT_EQ(ListCheckpoints(root_.string()),
            (std::vector<std::string>{"epoch-000001", "epoch-000002"}));
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_.string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 2);
  EXPECT_EQ(Latest(), "epoch-000002\n");
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().find(".staging"), std::string::npos);
  }
  // Once the replacement was published, the moved-aside copy is stale and removed.
  fs::create_directory(root_ / ".staging-epoch-000002-Ef34Gh.replaced");
  ASSERT_TRUE(CheckWritable(root_.string()).ok());
  EXPECT_FALSE(fs::exists(root_ / ".staging-epoch-000002-Ef34Gh.replaced"));
  EXPECT_TRUE(VerifyCheckpoint((root_ / "epoch-000002").string(), &m, "").ok());
}

TEST_F(StoreTest, UnwritableRootFails) {
  fs::create_directories(root_);
  std::ofstream(root_ / "file") << "x";
  CheckpointWriter w;
  Status st = CheckpointWriter::Begin((root_ / "file" / "sub").string(), 1, &w, Owner{}, "");
  EXPECT_EQ(st.code(), Status::Code::kIoError);
}

TEST_F(StoreTest, ResolveAcceptsRootDirectoryOrFile) {
  ASSERT_TRUE(Save(1, 5).ok());
  ASSERT_TRUE(Save(2, 5).ok());
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(ResolveCheckpoint(root_.string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 2);
  ASSERT_TRUE(ResolveCheckpoint((root_ / "epoch-000001").string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.epoch, 1);
  ASSERT_TRUE(
      ResolveCheckpoint((root_ / "epoch-000001" / "model.pt").string(), &skipped, &dir, &m, "")
          .ok());
  EXPECT_EQ(m.epoch, 1);
  EXPECT_EQ(ResolveCheckpoint((root_ / "nope").string(), &skipped, &dir, &m, "").code(),
            Status::Code::kNotFound);
}

}  // namespace
}  // namespace petname::checkpoint
