#include "trainer/checkpoint/owner.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tests/trainer/checkpoint/sample_manifest.h"

namespace petname::checkpoint {
namespace {

OwnerEnv Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(OwnerTest, RunIdThenTheOperatorsJobThenAnonymous) {
  const OwnerEnv job = Env(
      {{"PETNAME_JOB_UID", "u-1"}, {"PETNAME_JOB_NAME", "demo"}, {"PETNAME_NAMESPACE", "team-a"}});
  Owner o;
  ASSERT_TRUE(OwnerFromEnvironment(job, "r1", true, &o).ok());
  EXPECT_EQ(o.id, "run r1");
  ASSERT_TRUE(OwnerFromEnvironment(job, "", false, &o).ok());
  EXPECT_EQ(o.id, "job team-a/demo");
  EXPECT_EQ(o.uid, "u-1");
  EXPECT_EQ(DescribeOwner(o), "job team-a/demo (uid u-1)");
  ASSERT_TRUE(OwnerFromEnvironment(Env({{"PETNAME_JOB_NAME", "demo"}}), "", false, &o).ok());
  EXPECT_EQ(o.id, "");
  EXPECT_EQ(DescribeOwner(o), "an older petname (no owner recorded)");
}

TEST(OwnerTest, BadRunIdsAndAnIncompleteJobEnvironmentAreUsageErrors) {
  Owner o;
  for (const std::string& id : std::vector<std::string>{"", "a b", "a/b", std::string(64, 'x')}) {
    Status st = OwnerFromEnvironment(Env({}), id, true, &o);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << id;
    EXPECT_NE(st.message().find("--run-id"), std::string::npos);
  }
  EXPECT_TRUE(OwnerFromEnvironment(Env({}), std::string(63, 'x'), true, &o).ok());
  Status st = OwnerFromEnvironment(Env({{"PETNAME_JOB_UID", "u"}, {"PETNAME_NAMESPACE", "ns"}}), "",
                                   false, &o);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("PETNAME_JOB_NAME"), std::string::npos) << st.message();
}

TEST(OwnerTest, StagingDirectoriesAreTaggedWithTheirOwner) {
  const std::string mine = StagingTag({"run a", ""});
  const std::string theirs = StagingTag({"run b", ""});
  EXPECT_NE(mine, theirs);
  EXPECT_EQ(mine.size(), 13u);
  EXPECT_TRUE(StagingBelongsTo(".staging-epoch-000003-" + mine + "-Ab12Cd", mine));
  EXPECT_TRUE(StagingBelongsTo(".staging-epoch-000003-" + mine + "-Ab12Cd.replaced", mine));
  EXPECT_FALSE(StagingBelongsTo(".staging-epoch-000003-" + theirs + "-Ab12Cd", mine));
  EXPECT_FALSE(StagingBelongsTo(".staging-epoch-000003-" + theirs + "-Ab12Cd.replaced", mine));
  // An older petname's (untagged) are anybody's to clean up.
  EXPECT_TRUE(StagingBelongsTo(".staging-epoch-000003-Ab12Cd", mine));
  EXPECT_TRUE(StagingBelongsTo(".staging-epoch-000003-e2e.replaced", mine));
  EXPECT_FALSE(StagingBelongsTo("epoch-000003", mine));
  EXPECT_FALSE(StagingBelongsTo(".staging-", mine));
}

Manifest Owned(const std::string& id, Fingerprint settings) {
  Manifest m = SampleManifest();
  m.owner = {id, ""};
  m.settings = std::move(settings);
  m.settings_sha256 = FingerprintDigest(m.settings);
  return m;
}

const Fingerprint kSettings = {{"data", "d1"}, {"lr", "0.001"}, {"seed", "42"}};

TEST(OwnerTest, AnotherOwnersCheckpointsAreRefusedNamingBothUnlessAdopted) {
  const Manifest have = Owned("job ns/a", kSettings);
  const Manifest want = Owned("job ns/b", kSettings);
  Status st = CheckOwner(have, want, {}, "/ck");
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("the checkpoints in /ck belong to job ns/a, not to job ns/b"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("--adopt-checkpoints"), std::string::npos);
  EXPECT_EQ(CheckOwner(have, want, {false, true}, "/ck").code(),
            Status::Code::kFailedPrecondition);  // --force-resume is about data, not owners
  EXPECT_TRUE(CheckOwner(have, want, {true, false}, "/ck").ok());
  EXPECT_TRUE(CheckOwner(have, have, {}, "/ck").ok());
  EXPECT_TRUE(CheckOwner(Manifest{}, want, {}, "/ck").ok());  // written by an older petname
}

// With the job's key, another job's checkpoints do not verify: whose they say they are is named,
// and adopting them is not offered (they cannot be verified).
TEST(OwnerTest, CheckpointsThatDoNotVerifyAndClaimAnotherOwnerAreNamed) {
  const Status st = CheckClaimedOwner({"job ns/a", "u-a"}, {"job ns/b", "u-b"}, "/ck");
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "the checkpoints in /ck belong to job ns/a (uid u-a), not to job ns/b (uid u-b) (none "
            "of them is signed with this job's key); give this run its own checkpoint directory "
            "(spec.checkpoint.subPath, or another --checkpoint-dir)");
  EXPECT_TRUE(CheckClaimedOwner({"job ns/b", "u-b"}, {"job ns/b", "u-b"}, "/ck").ok());
  EXPECT_TRUE(CheckClaimedOwner({}, {"job ns/b", "u-b"}, "/ck").ok());
}

TEST(OwnerTest, TheSameOwnerWithOtherSettingsIsRefusedNamingTheSetting) {
  Fingerprint other = kSettings;
  other["lr"] = "0.002";
  Status st = CheckOwner(Owned("run a", kSettings), Owned("run a", other), {}, "/ck");
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("was trained with lr=0.001, this run has lr=0.002"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(
      CheckOwner(Owned("run a", kSettings), Owned("run a", other), {true, false}, "/ck").ok());
  // --force-resume accepts other data, as it always has, but not another learning rate.
  Fingerprint data = kSettings;
  data["data"] = "d2";
  EXPECT_TRUE(
      CheckOwner(Owned("run a", kSettings), Owned("run a", data), {false, true}, "/ck").ok());
  EXPECT_FALSE(CheckOwner(Owned("run a", kSettings), Owned("run a", data), {}, "/ck").ok());
  data["lr"] = "0.002";
  EXPECT_FALSE(
      CheckOwner(Owned("run a", kSettings), Owned("run a", data), {false, true}, "/ck").ok());
}

TEST(OwnerTest, ManifestRecordsTheOwnerAndSettingsAndReadsOlderOnesWithout) {
  Manifest m = Owned("job ns/a", kSettings);
  m.owner.uid = "u-1";
  Manifest got;
  ASSERT_TRUE(ParseManifest(ManifestToJson(m, ""), "", &got).ok());
  EXPECT_EQ(got.owner.id, "job ns/a");
  EXPECT_EQ(got.owner.uid, "u-1");
  EXPECT_EQ(got.settings, kSettings);
  EXPECT_EQ(got.settings_sha256, FingerprintDigest(kSettings));
  const std::string older = ManifestToJson(SampleManifest(), "");
  EXPECT_EQ(older.find("owner"), std::string::npos);
  ASSERT_TRUE(ParseManifest(older, "", &got).ok());
  EXPECT_EQ(got.owner.id, "");
  EXPECT_TRUE(got.settings.empty());
}

}  // namespace
}  // namespace petname::checkpoint
