// Two owners writing into one checkpoint root (checkpoint/owner.h): each removes, replaces and
// prunes only its own staging directories and checkpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/owner.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

namespace fs = std::filesystem;

class OwnedStoreTest : public ::testing::Test {
 protected:
  Status Save(const Owner& owner, int64_t epoch, int keep, const std::string& key = "") {
    CheckpointWriter w;
    PETNAME_RETURN_IF_ERROR(CheckpointWriter::Begin(root_.string(), epoch, &w, owner, key));
    std::ofstream(w.FilePath("model.pt")) << owner.id << " epoch " << epoch;
    Manifest m = SampleManifest(epoch);
    m.owner = owner;
    return w.Commit(m, keep);
  }

  // A staging directory as `owner`'s writer leaves it when killed.
  fs::path Staging(const Owner& owner, int64_t epoch) {
    fs::path p = root_ / (".staging-" + EpochDirName(epoch) + "-" + StagingTag(owner) + "-Xy12Zw");
    fs::create_directories(p);
    std::ofstream(p / "model.pt") << "partial";
    return p;
  }

  const Owner a_{"run a", ""};
  const Owner b_{"run b", ""};
  petname::testing::TempDir tmp_;
  fs::path root_ = tmp_.fs_path() / "shared";
};

TEST_F(OwnedStoreTest, StagingOfAnotherOwnerSurvivesAWriterAndTheStartUpCheck) {
  fs::create_directories(root_);
  const fs::path theirs = Staging(a_, 3);
  const fs::path mine = Staging(b_, 3);
  ASSERT_TRUE(CheckWritable(root_.string(), b_).ok());
  EXPECT_TRUE(fs::exists(theirs));
  EXPECT_FALSE(fs::exists(mine));
  ASSERT_TRUE(Save(b_, 1, 3).ok());
  EXPECT_TRUE(fs::exists(theirs));
}

TEST_F(OwnedStoreTest, PruningKeepsTheNewestOfTheOwnersOwnAndLeavesTheOthers) {
  ASSERT_TRUE(Save(a_, 1, 1).ok());
  ASSERT_TRUE(Save(a_, 2, 1).ok());
  for (int64_t e = 3; e <= 5; ++e) ASSERT_TRUE(Save(b_, e, 1).ok());
  EXPECT_EQ(ListCheckpoints(root_.string()),
            (std::vector<std::string>{"epoch-000002", "epoch-000005"}));
  EXPECT_EQ(ListOwnedCheckpoints(root_.string(), a_, ""), std::vector<std::string>{"epoch-000002"});
  EXPECT_EQ(ListOwnedCheckpoints(root_.string(), b_, ""), std::vector<std::string>{"epoch-000005"});
}

TEST_F(OwnedStoreTest, AnotherOwnersEpochIsNotReplaced) {
  ASSERT_TRUE(Save(a_, 1, 3).ok());
  Status st = Save(b_, 1, 3);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("belongs to run a, not to run b"), std::string::npos) << st.message();
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_.string(), &skipped, &dir, &m, "").ok());
  EXPECT_EQ(m.owner.id, "run a");
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().find(".staging"), std::string::npos);
  }
  ASSERT_TRUE(Save(a_, 1, 3).ok());  // its owner may
}

TEST_F(OwnedStoreTest, CheckpointsWithoutAnOwnerAreAnybodys) {
  ASSERT_TRUE(Save(Owner{}, 1, 1).ok());
  ASSERT_TRUE(Save(b_, 2, 1).ok());
  EXPECT_EQ(ListCheckpoints(root_.string()), std::vector<std::string>{"epoch-000002"});
}

// With a key (the job's secret, manifest_mac.h), a checkpoint that does not verify is nobody's:
// the newest valid one is the newest signed one, and pruning neither counts nor removes the
// others, even one that claims the owner.
TEST_F(OwnedStoreTest, WithAKeyAnEpochThatDoesNotVerifyIsNobodys) {
  const std::string key = "the job's secret";
  ASSERT_TRUE(Save(a_, 1, 2, key).ok());
  ASSERT_TRUE(Save(a_, 3, 2, "").ok());  // as planted without the secret
  ASSERT_TRUE(Save(a_, 4, 2, "another secret").ok());
  std::vector<std::string> skipped;
  std::string dir;
  Manifest m;
  ASSERT_TRUE(FindNewestValid(root_.string(), &skipped, &dir, &m, key).ok());
  EXPECT_EQ(dir, (root_ / "epoch-000001").string());
  EXPECT_TRUE(m.is_signed);
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         (root_ / "epoch-000004").string() +
                             ": manifest.json's mac does not verify with this job's key",
                         (root_ / "epoch-000003").string() +
                             ": manifest.json is not signed with this job's key"}));
  EXPECT_EQ(ListOwnedCheckpoints(root_.string(), a_, key),
            std::vector<std::string>{"epoch-000001"});
  ASSERT_TRUE(Save(a_, 2, 2, key).ok());
  ASSERT_TRUE(Save(a_, 5, 2, key).ok());
  EXPECT_EQ(
      ListCheckpoints(root_.string()),
      (std::vector<std::string>{"epoch-000002", "epoch-000003", "epoch-000004", "epoch-000005"}))
      << "epoch 1 pruned; the unverified 3 and 4 neither counted nor removed";
  ASSERT_TRUE(Save(a_, 3, 2, key).ok());
  EXPECT_TRUE(VerifyCheckpoint((root_ / "epoch-000003").string(), &m, key).ok())
      << "the job's own epoch replaces one that does not verify";
}

}  // namespace
}  // namespace petname::checkpoint
