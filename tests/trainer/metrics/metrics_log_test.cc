#include "trainer/metrics/metrics_log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"

namespace petname::metrics {
namespace {

class MetricsLogTest : public ::testing::Test {
 protected:
  petname::testing::TempDir tmp_;
  std::filesystem::path dir_ = tmp_.fs_path();
};

EpochRecord Record(int epoch) {
  EpochRecord r;
  r.epoch = epoch;
  r.train_loss = 2.0 / epoch;
  r.validation_loss = 1.9 / epoch;
  r.validation_accuracy = 0.5;
  r.elapsed_seconds = 70.0 * epoch;
  r.timestamp = 1763780000.5 + epoch;
  r.samples = 1048576;
  r.samples_per_second = 4480.5;
  r.learning_rate = 0.001;
  r.world_size = 2;
  return r;
}

TEST_F(MetricsLogTest, AppendThenReadRoundTrips) {
  const std::string path = (dir_ / kMetricsLogName).string();
  ASSERT_TRUE(AppendEpochRecord(path, Record(1)).ok());
  ASSERT_TRUE(AppendEpochRecord(path, Record(2)).ok());
  std::vector<EpochRecord> records;
  ASSERT_TRUE(ReadMetricsLog(path, &records).ok());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].epoch, 2);
  EXPECT_DOUBLE_EQ(records[1].train_loss, 1.0);
  EXPECT_DOUBLE_EQ(records[1].validation_loss, 0.95);
  EXPECT_DOUBLE_EQ(records[1].timestamp, 1763780002.5);
  EXPECT_EQ(records[1].samples, 1048576);
  EXPECT_EQ(records[1].world_size, 2);
  std::string text;
  ASSERT_TRUE(ReadFile(path, &text).ok());
  EXPECT_EQ(text, ToJsonLine(Record(1)) + "\n" + ToJsonLine(Record(2)) + "\n");
}

TEST_F(MetricsLogTest, NonFiniteValuesBecomeNullAndReadBackAsNan) {
  EpochRecord r = Record(1);
  r.train_loss = std::nan("");
  r.validation_loss = INFINITY;
  const std::string line = ToJsonLine(r);
  EXPECT_NE(line.find("\"train_loss\":null"), std::string::npos);
  EXPECT_NE(line.find("\"validation_loss\":null"), std::string::npos);
  std::vector<EpochRecord> records;
  ASSERT_TRUE(ParseMetricsLog(line + "\n", &records).ok());
  EXPECT_TRUE(std::isnan(records[0].train_loss));
  EXPECT_TRUE(std::isnan(records[0].validation_loss));
}

TEST_F(MetricsLogTest, MalformedLinesAreCorruptionWithTheirLineNumber) {
  std::vector<EpochRecord> records;
  const std::string header = ToJsonLine(Record(1)) + "\n\n";
  for (const char* bad : {"{not json", "[1,2]", "{\"epoch\":\"one\",\"elapsed_seconds\":1}",
                          "{\"elapsed_seconds\":1}"}) {
    std::string text = header;
    text.append(bad).append("\n");
    Status s = ParseMetricsLog(text, &records);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << bad;
    EXPECT_NE(s.message().find("line 3"), std::string::npos) << s.message();
  }
}

TEST_F(MetricsLogTest, UnknownKeysAreIgnored) {
  std::vector<EpochRecord> records;
  ASSERT_TRUE(
      ParseMetricsLog("{\"epoch\":4,\"elapsed_seconds\":9,\"future\":true}\n", &records).ok());
  EXPECT_EQ(records[0].epoch, 4);
  EXPECT_TRUE(std::isnan(records[0].validation_loss));
}

TEST_F(MetricsLogTest, ResumeCarriesOverElapsedTimeAndCountsTheRestart) {
  const std::string path = (dir_ / kMetricsLogName).string();
  CarriedOver carried;
  ASSERT_TRUE(CarryOverOnResume(path, 2, &carried).ok());
  EXPECT_EQ(carried.elapsed_seconds, 0);
  EXPECT_EQ(carried.restarts, 1);

  EpochRecord third = Record(3);
  third.restarts = 1;
  for (const EpochRecord& r : {Record(1), Record(2), third}) {
    ASSERT_TRUE(AppendEpochRecord(path, r).ok());
  }
  ASSERT_TRUE(CarryOverOnResume(path, 2, &carried).ok());  // epoch 3 is trained again
  EXPECT_EQ(carried.elapsed_seconds, 140);
  EXPECT_EQ(carried.restarts, 1);
  ASSERT_TRUE(CarryOverOnResume(path, 3, &carried).ok());
  EXPECT_EQ(carried.elapsed_seconds, 210);
  EXPECT_EQ(carried.restarts, 2);
}

TEST_F(MetricsLogTest, MissingFileIsNotFound) {
  std::vector<EpochRecord> records;
  EXPECT_EQ(ReadMetricsLog((dir_ / "none.jsonl").string(), &records).code(),
            Status::Code::kNotFound);
}

}  // namespace
}  // namespace petname::metrics
