// The Katib metrics file's lines: string values, RFC 3339 timestamps, unmeasured values left
// out; appends in place; a FIFO or a symbolic link at the path refused; the path check against
// the checkpoint directory. Katib's own parser reads a file the trainer wrote in tests/katib.
#include "trainer/metrics/katib_metrics_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "tests/support/temp_dir.h"

namespace petname::metrics {
namespace {

EpochRecord Record(int epoch) {
  EpochRecord r;
  r.epoch = epoch;
  r.train_loss = 2.05;
  r.validation_loss = 1.85;
  r.validation_accuracy = 0.52;
  r.elapsed_seconds = 78.5;
  r.timestamp = 1795312345.25;
  r.samples_per_second = 4480.5;
  r.learning_rate = 0.001;
  return r;
}

TEST(KatibMetricsFileTest, EveryValueIsAStringAndTheTimestampIsRfc3339) {
  const nlohmann::json line = nlohmann::json::parse(ToKatibJsonLine(Record(3)));
  EXPECT_EQ(line, nlohmann::json::parse(R"({"epoch":"3","trainLoss":"2.05",
      "validationLoss":"1.85","validationAccuracy":"0.52","samplesPerSecond":"4480.5",
      "learningRate":"0.001","elapsedSeconds":"78.5","timestamp":"2026-11-22T01:52:25.250Z"})"));
}

TEST(KatibMetricsFileTest, UnmeasuredValuesAreLeftOut) {
  EpochRecord r = Record(1);
  r.validation_loss = std::nan("");
  r.validation_accuracy = INFINITY;
  const nlohmann::json line = nlohmann::json::parse(ToKatibJsonLine(r));
  EXPECT_FALSE(line.contains("validationLoss"));
  EXPECT_FALSE(line.contains("validationAccuracy"));
  EXPECT_EQ(line.at("trainLoss"), "2.05");
}

TEST(KatibMetricsFileTest, AppendsLinesToTheSameFile) {
  petname::testing::TempDir dir;
  const std::string path = dir.Join("katib.json");
  ASSERT_TRUE(CreateKatibMetricsFile(path).ok());
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  ASSERT_TRUE(AppendKatibMetrics(path, Record(1)).ok());
  ASSERT_TRUE(AppendKatibMetrics(path, Record(2)).ok());
  ASSERT_TRUE(CreateKatibMetricsFile(path).ok());
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);  // never replaced: a follower keeps reading it
  std::string text;
  ASSERT_TRUE(ReadFile(path, &text).ok());
  EXPECT_EQ(text, ToKatibJsonLine(Record(1)) + "\n" + ToKatibJsonLine(Record(2)) + "\n");
}

TEST(KatibMetricsFileTest, AnUnwritablePathIsAnIoError) {
  petname::testing::TempDir dir;
  const Status st = CreateKatibMetricsFile(dir.Join("missing/katib.json"));
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("cannot open the Katib metrics file"), std::string::npos);
}

// A FIFO at the path (with or without a reader) or a symbolic link is refused at once, never
// waited on or followed.
TEST(KatibMetricsFileTest, AFifoOrASymlinkIsRefusedNotWaitedOnOrFollowed) {
  petname::testing::TempDir dir;
  const std::string fifo = dir.Join("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string not_regular =
      "the Katib metrics file " + fifo + " is not a regular file (a FIFO, device or socket)";
  Status st = CreateKatibMetricsFile(fifo);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), not_regular);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(AppendKatibMetrics(fifo, Record(1)).message(), not_regular);
  ::close(reader);
  const std::string target = dir.Join("target.json");
  ASSERT_TRUE(WriteFile(target, "kept\n").ok());
  const std::string link = dir.Join("link.json");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  st = AppendKatibMetrics(link, Record(1));
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "the Katib metrics file " + link + " is a symbolic link, which is not followed");
  std::string text;
  ASSERT_TRUE(ReadFile(target, &text).ok());
  EXPECT_EQ(text, "kept\n");
  const std::string dangling = dir.Join("dangling.json");
  ASSERT_EQ(::symlink(dir.Join("made.json").c_str(), dangling.c_str()), 0);
  EXPECT_EQ(CreateKatibMetricsFile(dangling).code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir.Join("made.json")));
}

TEST(KatibMetricsFileTest, RefusesTheCheckpointDirectory) {
  EXPECT_EQ(CheckKatibMetricsPath("/ckpt/katib.json", "/ckpt").code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckKatibMetricsPath("/ckpt/./katib.json", "/ckpt/").code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckKatibMetricsPath("katib.json", ".").code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(CheckKatibMetricsPath("/var/run/katib/metrics.json", "/ckpt").ok());
  EXPECT_TRUE(CheckKatibMetricsPath("/ckpt/katib/metrics.json", "/ckpt").ok());
  EXPECT_TRUE(CheckKatibMetricsPath("/katib/metrics.json", "").ok());
}

}  // namespace
}  // namespace petname::metrics
