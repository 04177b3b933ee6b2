// Manifests signed with the job's key (manifest_mac.h): a signed manifest verifies with its key
// only, any change to any field breaks it, an unsigned one is refused where there is a key, and
// the key comes from the operator's environment only.
#include "trainer/checkpoint/manifest_mac.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "common/sha256.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {
namespace {

using nlohmann::json;

const std::string kKey = "4f1c0a9e8d7b6a5f4e3d2c1b0a9f8e7d";

Manifest Sample() {
  Manifest m = SampleManifest(3);
  m.files = {{"model.safetensors", std::string(64, 'b')}, {"names.txt", std::string(64, 'c')}};
  m.owner = {"job default/rex", "u1"};
  m.settings = {{"seed", "42"}};
  m.settings_sha256 = FingerprintDigest(m.settings);
  return m;
}

Status Parse(const std::string& text, const std::string& key) {
  Manifest m;
  return ParseManifest(text, key, &m);
}

TEST(ManifestMacTest, ASignedManifestVerifiesWithItsKeyOnly) {
  const std::string text = ManifestToJson(Sample(), kKey);
  Manifest m;
  ASSERT_TRUE(ParseManifest(text, kKey, &m).ok());
  EXPECT_TRUE(m.is_signed);
  EXPECT_EQ(m.owner.id, "job default/rex");
  const Status other = Parse(text, "another job's secret");
  EXPECT_EQ(other.code(), Status::Code::kCorruption);
  EXPECT_EQ(other.message(), "manifest.json's mac does not verify with this job's key");
  ASSERT_TRUE(ParseManifest(text, "", &m).ok()) << "without a key it is not checked";
  EXPECT_TRUE(m.is_signed);
}

TEST(ManifestMacTest, AnUnsignedManifestIsRefusedWhereThereIsAKey) {
  const std::string text = ManifestToJson(Sample(), "");
  EXPECT_EQ(json::parse(text).count("mac"), 0u);
  Manifest m;
  ASSERT_TRUE(ParseManifest(text, "", &m).ok());
  EXPECT_FALSE(m.is_signed);
  const Status st = Parse(text, kKey);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), "manifest.json is not signed with this job's key");
}

// The MAC covers every field, the checksum of every file included; it does not depend on the
// file's whitespace.
TEST(ManifestMacTest, EveryFieldIsCoveredButNotTheWhitespace) {
  const json signed_json = json::parse(ManifestToJson(Sample(), kKey));
  EXPECT_TRUE(Parse(signed_json.dump(), kKey).ok()) << "compact";
  EXPECT_TRUE(Parse(signed_json.dump(7), kKey).ok()) << "indented otherwise";
  const std::map<std::string, json> changes = {
      {"/epoch", 9},
      {"/files/model.safetensors", std::string(64, 'd')},
      {"/files/extra.txt", std::string(64, 'e')},
      {"/owner/id", "job default/other"},
      {"/hyper_parameters/hidden_size", 64},
      {"/metrics/val_loss", 0.5},
      {"/settings/seed", "43"},
  };
  for (const auto& [pointer, value] : changes) {
    json changed = signed_json;
    changed[json::json_pointer(pointer)] = value;
    EXPECT_EQ(Parse(changed.dump(), kKey).message(),
              "manifest.json's mac does not verify with this job's key")
        << pointer;
  }
  json removed = signed_json;
  removed.erase("owner");
  EXPECT_EQ(Parse(removed.dump(), kKey).code(), Status::Code::kCorruption);
}

// The MAC is not the one the same secret makes at rendezvous, nor a plain HMAC of the JSON.
TEST(ManifestMacTest, TheMacIsSeparatedFromOtherUsesOfTheSecret) {
  json j = json::parse(ManifestToJson(Sample(), ""));
  EXPECT_NE(ManifestMac(j, kKey), HmacSha256Hex(kKey, j.dump()));
  json forged = j;
  forged["mac"] = HmacSha256Hex(kKey, j.dump());
  EXPECT_EQ(Parse(forged.dump(), kKey).code(), Status::Code::kCorruption);
}

TEST(ManifestMacTest, AMacOfTheWrongFormIsDamage) {
  for (const json& mac : {json("xyz"), json(7), json(std::string(64, 'G'))}) {
    json j = json::parse(ManifestToJson(Sample(), ""));
    j["mac"] = mac;
    EXPECT_EQ(Parse(j.dump(), "").message(), "manifest.json: mac must be 64 lower-case hex digits")
        << mac;
    EXPECT_EQ(Parse(j.dump(), kKey).code(), Status::Code::kCorruption) << mac;
  }
}

OwnerEnv Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(ManifestMacTest, TheKeyIsTheSecretWhereTheOperatorRunsTheJobOnly) {
  std::string key = "stale";
  ASSERT_TRUE(CheckpointKeyFromEnvironment(Env({}), &key).ok());
  EXPECT_EQ(key, "") << "a local run";
  ASSERT_TRUE(
      CheckpointKeyFromEnvironment(Env({{"PETNAME_RENDEZVOUS_SECRET", "launch-only"}}), &key).ok());
  EXPECT_EQ(key, "") << "ranks of `train --nproc N` share a secret of one launch";
  ASSERT_TRUE(CheckpointKeyFromEnvironment(
                  Env({{"PETNAME_JOB_UID", "u1"}, {"PETNAME_RENDEZVOUS_SECRET", kKey}}), &key)
                  .ok());
  EXPECT_EQ(key, kKey);
  for (const auto& env : {Env({{"PETNAME_JOB_UID", "u1"}}),
                          Env({{"PETNAME_JOB_UID", ""}, {"PETNAME_RENDEZVOUS_SECRET", ""}})}) {
    const Status st = CheckpointKeyFromEnvironment(env, &key);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(st.message().rfind("PETNAME_RENDEZVOUS_SECRET is empty or unset, but "
                                 "PETNAME_JOB_UID says the operator runs this job",
                                 0),
              0u)
        << st.message();
  }
}

TEST(ManifestMacTest, ACheckpointReadIsDescribedByOwnerAndSignature) {
  Manifest m = Sample();
  m.is_signed = true;
  EXPECT_EQ(DescribeCheckpoint("/c/epoch-000003", m, kKey),
            "checkpoint /c/epoch-000003 (epoch 3) of job default/rex (uid u1), signed with this "
            "job's key");
  EXPECT_EQ(DescribeCheckpoint("/c/epoch-000003", m, ""),
            "checkpoint /c/epoch-000003 (epoch 3) of job default/rex (uid u1), signed, not "
            "checked (no job key here)");
  m.is_signed = false;
  m.owner = {};
  EXPECT_EQ(DescribeCheckpoint("d", m, ""),
            "checkpoint d (epoch 3) of an older petname (no owner recorded), not signed");
}

}  // namespace
}  // namespace petname::checkpoint
