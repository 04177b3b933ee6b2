#include "trainer/checkpoint/manifest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/manifest_check.h"

namespace petname::checkpoint {
namespace {

Manifest Sample() {
  Manifest m = SampleManifest(3);
  m.files = {{"model.safetensors", std::string(64, 'b')},
             {"optimizer.safetensors", std::string(64, 'c')}};
  return m;
}

// Sample()'s JSON with the member at `path` (a JSON pointer) set to `value`.
std::string With(const std::string& path, const nlohmann::json& value) {
  nlohmann::json j = nlohmann::json::parse(ManifestToJson(Sample(), ""));
  j[nlohmann::json::json_pointer(path)] = value;
  return j.dump();
}

TEST(ManifestTest, RoundTrips) {
  Manifest m = Sample();
  Manifest got;
  ASSERT_TRUE(ParseManifest(ManifestToJson(m, ""), "", &got).ok());
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
  EXPECT_EQ(ManifestToJson(got, ""), ManifestToJson(m, ""));
}

TEST(ManifestTest, RejectsDamagedText) {
  Manifest got;
  std::string json = ManifestToJson(Sample(), "");
  EXPECT_EQ(ParseManifest(json.substr(0, json.size() / 2), "", &got).code(),
            Status::Code::kCorruption);
  EXPECT_EQ(ParseManifest("{\"format_version\": 2}", "", &got).code(), Status::Code::kCorruption);
  EXPECT_EQ(ParseManifest("[]", "", &got).code(), Status::Code::kCorruption);
}

// A manifest is untrusted: every field is type- and range-checked and the error names it.
TEST(ManifestTest, RejectsOutOfRangeFieldsNamingThem) {
  const nlohmann::json sha = std::string(64, 'b');
  const std::vector<std::tuple<std::string, nlohmann::json, std::string>> cases = {
      {"/hyper_parameters/window", -1, "hyper_parameters.window is -1, outside [1, 256]"},
      {"/hyper_parameters/window", int64_t{1} << 40, "hyper_parameters.window is 1099511627776"},
      {"/hyper_parameters/window", 8.5, "hyper_parameters.window must be an integer, not number"},
      {"/hyper_parameters/window", 1e300, "hyper_parameters.window must be an integer"},
      {"/hyper_parameters/window", "8", "hyper_parameters.window must be an integer, not string"},
      {"/hyper_parameters/hidden_size", 0, "hyper_parameters.hidden_size is 0"},
      {"/hyper_parameters/hidden_size", 1 << 20, "hyper_parameters.hidden_size is 1048576"},
      {"/hyper_parameters/num_layers", 1000, "hyper_parameters.num_layers is 1000"},
      {"/hyper_parameters/vocab_size", 40,
       "hyper_parameters.vocab_size is 40 but the vocabulary has 31"},
      {"/hyper_parameters/batch_size", 0, "hyper_parameters.batch_size is 0"},
      {"/hyper_parameters/seed", -1, "hyper_parameters.seed must be a non-negative integer"},
      {"/hyper_parameters/learning_rate", -0.5, "hyper_parameters.learning_rate is -0.5"},
      {"/hyper_parameters/validation_fraction", 1,
       "hyper_parameters.validation_fraction is 1, outside [0, 1)"},
      {"/hyper_parameters/precision", "fp8", "hyper_parameters.precision is \"fp8\""},
      {"/epoch", -3, "epoch is -3"},
      {"/epoch", 18446744073709551615ull, "epoch is 18446744073709551615"},
      {"/step", -1, "step is -1"},
      {"/epoch_examples", -1, "epoch_examples is -1"},
      {"/world_size", 0, "world_size is 0"},
      {"/data_fingerprint", std::string(1000, 'a'), "data_fingerprint must be at most 128"},
      {"/metrics/val_loss", "low", "metrics.val_loss must be a number or null, not string"},
      {"/files", nlohmann::json::array(), "files must be an object, not array"},
      {"/files/~1etc~1passwd", sha, "files names \"/etc/passwd\", not a plain file name"},
      {"/files/..", sha, "files names \"..\""},
      {"/files/..~1..~1model.pt", sha, "files names \"../../model.pt\""},
      {"/files/sub~1model.pt", sha, "files names \"sub/model.pt\""},
      {"/files/manifest.json", sha, "files names \"manifest.json\""},
      {"/files/model.pt", "xyz", "files.model.pt must be a sha256 of 64 lower-case hex digits"},
      {"/format_version", "1", "format_version must be an integer, not string"},
      {"/format_version", 4294967297ull, "format_version is 4294967297"},
  };
  for (const auto& [path, value, needle] : cases) {
    SCOPED_TRACE(path + " = " + value.dump().substr(0, 40));
    Manifest got;
    Status st = ParseManifest(With(path, value), "", &got);
    EXPECT_EQ(st.code(), Status::Code::kCorruption);
    EXPECT_NE(st.message().find("manifest.json: " + needle), std::string::npos) << st.message();
  }
  nlohmann::json missing = nlohmann::json::parse(ManifestToJson(Sample(), ""));
  missing["hyper_parameters"].erase("window");
  Manifest got;
  EXPECT_NE(
      ParseManifest(missing.dump(), "", &got).message().find("hyper_parameters.window is missing"),
      std::string::npos);
}

// NaN metrics (an epoch without validation examples) are written as null and read back.
TEST(ManifestTest, NanMetricsRoundTrip) {
  Manifest m = Sample();
  m.metrics.val_loss = NAN;
  Manifest got;
  ASSERT_TRUE(ParseManifest(ManifestToJson(m, ""), "", &got).ok());
  EXPECT_TRUE(std::isnan(got.metrics.val_loss));
}

TEST(ManifestTest, PlainFileNames) {
  for (const char* ok : {"model.safetensors", "names.txt", "rng.safetensors", "a-b_c.1"}) {
    EXPECT_TRUE(IsPlainFileName(ok)) << ok;
  }
  for (const char* bad :
       {"", ".", "..", ".hidden", "/abs", "a/b", "a\\b", "manifest.json", "sp ace", "nul\x01"}) {
    EXPECT_FALSE(IsPlainFileName(bad)) << bad;
  }
  EXPECT_FALSE(IsPlainFileName(std::string(65, 'a')));
}

TEST(ManifestTest, OtherFormatVersionIsAPrecondition) {
  Manifest m = Sample();
  m.format_version = kFormatVersion + 1;
  Manifest got;
  Status st = ParseManifest(ManifestToJson(m, ""), "", &got);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("format version"), std::string::npos);
}

// Format 1 (TorchScript tensor files) is refused with the one way forward: the conversion.
TEST(ManifestTest, FormatOneNamesTheConversion) {
  Manifest m = Sample();
  m.format_version = 1;
  Manifest got;
  Status st = ParseManifest(ManifestToJson(m, ""), "", &got);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "checkpoint format version 1 is not supported (this petname reads version 2); its "
            "TorchScript tensor files run code when loaded: convert them once with `petname "
            "convert-checkpoints --checkpoint-dir DIR` if nobody else could have written them, "
            "or move them away");
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
