#include "trainer/export/recipe_format.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/trainer/checkpoint/sample_manifest.h"

namespace petname::exporter {
namespace {

TEST(RecipeFormat, LstmNamesStayHeadBecomesFc) {
  std::string out;
  for (const std::string name :
       {"lstm.weight_ih_l0", "lstm.weight_hh_l3", "lstm.bias_ih_l2", "lstm.bias_hh_l1"}) {
    ASSERT_TRUE(RecipeTensorName(name, &out));
    EXPECT_EQ(out, name);
  }
  ASSERT_TRUE(RecipeTensorName("head.weight", &out));
  EXPECT_EQ(out, "fc.weight");
  ASSERT_TRUE(RecipeTensorName("head.bias", &out));
  EXPECT_EQ(out, "fc.bias");
  EXPECT_FALSE(RecipeTensorName("lstm.", &out));
  EXPECT_FALSE(RecipeTensorName("head.other", &out));
  EXPECT_FALSE(RecipeTensorName("embedding.weight", &out));
}

TEST(RecipeFormat, MetadataDescribesModelAndRun) {
  checkpoint::Manifest m = checkpoint::SampleManifest(3);
  m.settings_sha256 = std::string(64, 'b');
  const auto meta = RecipeMetadata(m);
  EXPECT_EQ(meta.at("format"), "petname-recipe-lstm-v1");
  EXPECT_EQ(meta.at("vocabulary"), "*+abcdefghijklmnopqrstuvwxyz-. ");
  EXPECT_EQ(meta.at("pad"), "*");
  EXPECT_EQ(meta.at("stop"), "+");
  EXPECT_EQ(meta.at("window"), "8");
  EXPECT_EQ(meta.at("input"), "one_hot");
  EXPECT_EQ(meta.at("vocab_size"), "31");
  EXPECT_EQ(meta.at("hidden_size"), "128");
  EXPECT_EQ(meta.at("num_layers"), "4");
  EXPECT_EQ(meta.at("epochs"), "3");
  EXPECT_EQ(meta.at("steps"), "225");
  EXPECT_EQ(meta.at("seed"), "42");
  EXPECT_EQ(meta.at("batch_size"), "4096");
  EXPECT_EQ(meta.at("world_size"), "1");
  EXPECT_EQ(meta.at("learning_rate"), "0.001");
  EXPECT_EQ(meta.at("precision"), "fp32");
  EXPECT_EQ(meta.at("validation_fraction"), "0.05");
  EXPECT_EQ(meta.at("train_loss"), "1.9");
  EXPECT_EQ(meta.at("val_loss"), "1.8");
  EXPECT_EQ(meta.at("val_accuracy"), "0.55");
  EXPECT_EQ(meta.at("data_fingerprint_sha256"), std::string(64, 'a'));
  EXPECT_EQ(meta.at("settings_sha256"), std::string(64, 'b'));
  EXPECT_EQ(meta.size(), 22U);
}

TEST(RecipeFormat, NonFiniteNumbersAreWords) {
  checkpoint::Manifest m = checkpoint::SampleManifest();
  m.metrics.val_loss = NAN;
  m.metrics.val_accuracy = INFINITY;
  const auto meta = RecipeMetadata(m);
  EXPECT_EQ(meta.at("val_loss"), "nan");
  EXPECT_EQ(meta.at("val_accuracy"), "inf");
}

}  // namespace
}  // namespace petname::exporter
