#include "trainer/checkpoint/manifest.h"

#include <gtest/gtest.h>

namespace petname::checkpoint {
namespace {

Manifest Sample() {
  Manifest m;
  m.epoch = 3;
  m.step = 225;
  m.hyper = {31, 128, 4, 8, 4096, 0.001, 42, "fp32", 0.05};
  m.vocabulary = "*+abcdefghijklmnopqrstuvwxyz-. ";
  m.data_fingerprint = std::string(64, 'a');
  m.metrics = {1.9, 1.8, 0.55};
  m.files = {{"model.pt", std::string(64, 'b')}, {"optimizer.pt", std::string(64, 'c')}};
  return m;
}

TEST(ManifestTest, RoundTrips) {
  Manifest m = Sample();
  Manifest got;
  ASSERT_TRUE(ParseManifest(ManifestToJson(m), &got).ok());
  EXPECT_EQ(got.epoch, 3);
  EXPECT_EQ(got.step, 225);
  EXPECT_EQ(got.hyper.hidden_size, 128);
  EXPECT_EQ(got.hyper.seed, 42u);
  EXPECT_EQ(got.hyper.learning_rate, 0.001);
  EXPECT_EQ(got.hyper.precision, "fp32");
  EXPECT_EQ(got.vocabulary, m.vocabulary);
  EXPECT_EQ(got.data_fingerprint, m.data_fingerprint);
  EXPECT_EQ(got.metrics.val_accuracy, 0.55);
  EXPECT_EQ(got.files, m.files);
  EXPECT_EQ(ManifestToJson(got), ManifestToJson(m));
}

TEST(ManifestTest, RejectsDamagedText) {
  Manifest got;
  std::string json = ManifestToJson(Sample());
  EXPECT_EQ(ParseManifest(json.substr(0, json.size() / 2), &got).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseManifest("{\"format_version\": 1}", &got).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseManifest("[]", &got).code(), Status::Code::kCorruption);
}

TEST(ManifestTest, OtherFormatVersionIsAPrecondition) {
  Manifest m = Sample();
  m.format_version = kFormatVersion + 1;
  Manifest got;
  Status st = ParseManifest(ManifestToJson(m), &got);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("format version"), std::string::npos);
}

TEST(ManifestTest, ResumeCompatibility) {
  Manifest have = Sample();
  Manifest want = Sample();
  want.hyper.batch_size = 128;
  want.hyper.precision = "bf16";
  EXPECT_TRUE(CheckResumable(have, want, false).ok());
  want.data_fingerprint = std::string(64, 'd');
  EXPECT_EQ(CheckResumable(have, want, false).code(), Status::Code::kFailedPrecondition);
  EXPECT_TRUE(CheckResumable(have, want, true).ok());
  want = Sample();
  want.hyper.hidden_size = 64;
  EXPECT_EQ(CheckResumable(have, want, true).code(), Status::Code::kFailedPrecondition);
}

}  // namespace
}  // namespace petname::checkpoint
