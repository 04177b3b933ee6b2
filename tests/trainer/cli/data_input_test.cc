// The data file through the real binary: a gzip-compressed file (made by the real gzip tool)
// trains exactly like the plain one, and data that would train nothing useful (a damaged or
// oversized gzip file, a binary file read as text, a split without validation names) is one
// error line instead of a run that reports `val_loss nan` and exits 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

std::string Gzip(const std::string& from, const TempDir& dir, const std::string& name) {
  const std::string to = dir.Join(name);
  const std::string command = "gzip -9 -c '" + from + "' > '" + to + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return to;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string Write(const TempDir& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir.Join(name), std::ios::binary) << bytes;
  return dir.Join(name);
}

// The "petname: data: ..." line of a run's stderr.
std::string DataLine(const std::string& err) {
  const size_t begin = err.find("petname: data: ");
  if (begin == std::string::npos) return "";
  return err.substr(begin, err.find('\n', begin) - begin);
}

struct Trained {
  nlohmann::json summary;
  std::string data_line;
};

Trained TrainOn(const std::string& data, const TempDir& dir, const std::string& name) {
  std::vector<std::string> args = SmallTrainArgs(2, "");
  args[2] = data;
  args.insert(args.end(), {"--seed", "3", "--summary-json", dir.Join(name)});
  const RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string text;
  EXPECT_TRUE(ReadFile(dir.Join(name), &text).ok());
  return {nlohmann::json::parse(text, nullptr, false), DataLine(r.err)};
}

TEST(DataInputTest, GzippedSeattleTableTrainsLikeThePlainOne) {
  TempDir dir;
  const std::string gz = Gzip(TestData(), dir, "seattle_pet_licenses.csv.gz");
  const Trained plain = TrainOn(TestData(), dir, "plain.json");
  const Trained packed = TrainOn(gz, dir, "packed.json");
  EXPECT_NE(plain.data_line, "");
  EXPECT_EQ(packed.data_line, plain.data_line);
  EXPECT_EQ(packed.summary["train_loss_trace"], plain.summary["train_loss_trace"]);
  EXPECT_EQ(packed.summary["val_loss_trace"], plain.summary["val_loss_trace"]);
  EXPECT_EQ(packed.summary["parameters_sha256"], plain.summary["parameters_sha256"]);
  // Recognised by its bytes, not its name.
  const Trained renamed = TrainOn(Write(dir, "pets.data", Slurp(gz)), dir, "renamed.json");
  EXPECT_EQ(renamed.data_line, plain.data_line);
  EXPECT_EQ(renamed.summary["parameters_sha256"], plain.summary["parameters_sha256"]);
}

TEST(DataInputTest, DamagedOrOversizedGzipIsOneErrorLine) {
  TempDir dir;
  const std::string gz = Slurp(Gzip(TestData(), dir, "whole.csv.gz"));
  const std::string cut = Write(dir, "cut.csv.gz", gz.substr(0, gz.size() / 2));
  ExpectOneLineError(RunPetname({"train", "--data", cut, "--epochs", "1"}), 1,
                     "data file " + cut + ": truncated gzip data: it ends after " +
                         std::to_string(gz.size() / 2) +
                         " bytes, before its compressed stream does");
  std::string bad_crc = gz;  // the trailer's CRC-32 of the contents
  bad_crc[gz.size() - 8] = static_cast<char>(bad_crc[gz.size() - 8] ^ 0x01);
  const std::string bad = Write(dir, "bad.csv.gz", bad_crc);
  ExpectOneLineError(RunPetname({"train", "--data", bad}), 1,
                     "data file " + bad + ": damaged gzip data: incorrect data check");
  // The compressed file is under the cap, its contents are not: a gzip bomb is refused.
  const std::string whole = dir.Join("whole.csv.gz");
  const std::string cap = std::to_string(gz.size() + 1);
  ExpectOneLineError(RunPetname({"train", "--data", whole, "--max-data-bytes", cap}), 2,
                     "data file " + whole +
                         " is gzip-compressed and decompresses to more than --max-data-bytes " +
                         cap + " bytes");
}

// The report: a compressed table read as text kept 4 names of 2437 "records" and
// trained on them with `val_loss nan`. A binary file is now refused by the usable-share rule.
TEST(DataInputTest, BinaryFileReadAsTextIsRefused) {
  TempDir dir;
  const std::string gz = Slurp(Gzip(TestData(), dir, "whole.csv.gz"));
  const std::string raw = Write(dir, "pets.bin", gz.substr(2));  // no gzip magic: not gzip
  const RunResult r = RunPetname({"train", "--data", raw, "--epochs", "1"});
  ExpectOneLineError(r, 2, "data file " + raw + ": only ");
  EXPECT_NE(r.err.find(" non-empty records give a usable name ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at least half must"), std::string::npos) << r.err;
}

TEST(DataInputTest, NoValidationNamesIsAnErrorUnlessValidationIsOff) {
  TempDir dir;
  const std::string names = Write(dir, "names.txt", "Rex\nSpot\nBella\nMax\n");
  ExpectOneLineError(RunPetname({"train", "--data", names, "--epochs", "1"}), 2,
                     "data file " + names +
                         ": no validation examples: none of its 4 distinct names falls in the "
                         "--validation-fraction 0.05 hold-out; ");
  const RunResult r = RunPetname(
      {"train", "--data", names, "--epochs", "1", "--threads", "1", "--validation-fraction", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("0 validation examples"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace petname::testing
