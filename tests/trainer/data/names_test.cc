#include "trainer/data/names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/data/gzip_compress.h"
#include "trainer/data/dataset.h"

namespace petname::data {
namespace {

namespace fs = std::filesystem;

class NamesTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& contents) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

  petname::testing::TempDir tmp_;
  fs::path dir_ = tmp_.fs_path();
};

TEST_F(NamesTest, CsvColumnFoundByHeaderAndCleaned) {
  NameSourceOptions o;
  o.path = Write("p.csv",
                 "Id,Animal's Name,Species\n1,\" Spot \",Dog\n2,,Cat\n3,Zoë,Cat\n"
                 "4,\"Mary-Jane, Jr.\",Dog\n5,R2D2,Dog\n6,MAX,Dog\n7\n");
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_TRUE(got.csv);
  EXPECT_EQ(got.names, (std::vector<std::string>{"spot", "max"}));
  EXPECT_EQ(got.records, 7u);
  EXPECT_EQ(got.dropped_empty, 1u);
  EXPECT_EQ(got.dropped_bad_chars, 3u);
  EXPECT_EQ(got.dropped_short_row, 1u);
}

TEST_F(NamesTest, ColumnOverrideAndWrongColumn) {
  NameSourceOptions o;
  o.path = Write("p.csv", "pet,other\nRex,x\n");
  o.column = "pet";
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_EQ(got.names, (std::vector<std::string>{"rex"}));
  o.column = "Nope";
  Status st = LoadNames(o, &got);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("Nope"), std::string::npos);
  o.column.clear();
  EXPECT_EQ(LoadNames(o, &got).code(), Status::Code::kInvalidArgument);
}

TEST_F(NamesTest, TextFileOneNamePerLine) {
  NameSourceOptions o;
  o.path = Write("names.txt", "\xEF\xBB\xBFRex\r\nbella\r\n\r\nfido");
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_FALSE(got.csv);
  EXPECT_EQ(got.names, (std::vector<std::string>{"rex", "bella", "fido"}));
  EXPECT_EQ(got.dropped_empty, 1u);
}

TEST_F(NamesTest, CsvDetectedByHeaderWithoutExtension) {
  NameSourceOptions o;
  o.path = Write("export", "Animal's Name,Species\nRex,Dog\n");
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_TRUE(got.csv);
  EXPECT_EQ(got.names, (std::vector<std::string>{"rex"}));
}

TEST_F(NamesTest, MaxNamesKeepsTheFirstUsable) {
  NameSourceOptions o;
  o.path = Write("n.txt", "a\n!\nb\nc\nd\n");
  o.max_names = 2;
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_EQ(got.names, (std::vector<std::string>{"a", "b"}));
}

TEST_F(NamesTest, BadFiles) {
  NameList got;
  NameSourceOptions o;
  o.path = (dir_ / "missing.csv").string();
  EXPECT_EQ(LoadNames(o, &got).code(), Status::Code::kNotFound);
  o.path = Write("empty.txt", "");
  EXPECT_EQ(LoadNames(o, &got).code(), Status::Code::kInvalidArgument);
  o.path = Write("bad.txt", "123\n!!\n");
  EXPECT_EQ(LoadNames(o, &got).code(), Status::Code::kInvalidArgument);
  o.path = Write("open.csv", "Animal's Name\nRex\n\"Spot\nFido\n");
  Status st = LoadNames(o, &got);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("line 3"), std::string::npos) << st.message();
  o.path = dir_.string();
  EXPECT_EQ(LoadNames(o, &got).code(), Status::Code::kInvalidArgument);
}

// A gzip-compressed file reads as its contents, recognised by its bytes, not its name.
TEST_F(NamesTest, GzipFilesReadAsTheirContents) {
  using petname::testing::GzipCompress;
  const std::string csv = "Id,Animal's Name\n1,Rex\n2,R2D2\n";
  NameSourceOptions o;
  NameList got;
  for (const char* name : {"p.csv.gz", "p.CSV.GZ", "p.csv", "p.data"}) {
    o.path = Write(name, GzipCompress(csv));
    ASSERT_TRUE(LoadNames(o, &got).ok()) << name;
    EXPECT_TRUE(got.csv) << name;
    EXPECT_EQ(got.names, std::vector<std::string>{"rex"}) << name;
    EXPECT_EQ(got.records, 2u) << name;
  }
  // A ".csv.gz" name makes a header-less CSV a CSV, as ".csv" does for the plain file.
  o.column = "Name";
  o.path = Write("n.csv.gz", GzipCompress("Name\nSpot\n"));
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_EQ(got.names, std::vector<std::string>{"spot"});
  o.column.clear();
  o.path = Write("names.txt.gz", GzipCompress("\xEF\xBB\xBFRex\r\nSpot\r\n"));
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_FALSE(got.csv);
  EXPECT_EQ(got.names, (std::vector<std::string>{"rex", "spot"}));
  // A ".gz" name alone does not make a plain file compressed.
  o.path = Write("plain.txt.gz", "Rex\n");
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_EQ(got.names, std::vector<std::string>{"rex"});
}

TEST_F(NamesTest, GzipBombsAndDamagedGzip) {
  using petname::testing::GzipCompress;
  NameSourceOptions o;
  NameList got;
  o.path = Write("bomb.csv.gz", GzipCompress(std::string(size_t{4} << 20, 'a')));
  o.max_bytes = int64_t{1} << 20;
  Status st = LoadNames(o, &got);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "data file " + o.path +
                              " is gzip-compressed and decompresses to more than "
                              "--max-data-bytes 1048576 bytes");
  o.max_bytes = kDefaultMaxDataBytes;
  const std::string whole = GzipCompress("Rex\nSpot\n");
  o.path = Write("cut.txt.gz", whole.substr(0, whole.size() - 3));
  st = LoadNames(o, &got);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), "data file " + o.path + ": truncated gzip data: it ends after " +
                              std::to_string(whole.size() - 3) +
                              " bytes, before its compressed stream does");
  o.path = Write("empty.txt.gz", GzipCompress(""));
  st = LoadNames(o, &got);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "data file " + o.path + " is empty");
}

TEST(SeattleDataTest, GzippedTableReadsAsThePlainOne) {
  if (!fs::exists(testing::TestData())) GTEST_SKIP() << "no data at " << testing::TestData();
  std::string csv;
  {
    std::ifstream in(testing::TestData(), std::ios::binary);
    csv.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  petname::testing::TempDir tmp;
  const std::string gz = tmp.Join("seattle_pet_licenses.csv.gz");
  std::ofstream(gz, std::ios::binary) << petname::testing::GzipCompress(csv, 9);
  NameSourceOptions o;
  NameList plain;
  NameList packed;
  o.path = testing::TestData();
  ASSERT_TRUE(LoadNames(o, &plain).ok());
  o.path = gz;
  ASSERT_TRUE(LoadNames(o, &packed).ok());
  EXPECT_EQ(packed.names, plain.names);
  EXPECT_EQ(packed.records, plain.records);
  EXPECT_EQ(packed.dropped_empty, plain.dropped_empty);
  EXPECT_EQ(packed.dropped_bad_chars, plain.dropped_bad_chars);
  EXPECT_TRUE(packed.csv);
  EXPECT_EQ(BuildDataset(packed.names, EncodeOptions()).fingerprint,
            BuildDataset(plain.names, EncodeOptions()).fingerprint);
}

TEST(SeattleDataTest, CountsMatchTheDataReadme) {
  if (!fs::exists(testing::TestData())) GTEST_SKIP() << "no data at " << testing::TestData();
  NameSourceOptions o;
  o.path = testing::TestData();
  NameList got;
  ASSERT_TRUE(LoadNames(o, &got).ok());
  EXPECT_EQ(got.records, 45591u);
  EXPECT_EQ(got.names.size(), 45178u);
  EXPECT_EQ(got.dropped_empty, 33u);
  Dataset d = BuildDataset(got.names, EncodeOptions());
  EXPECT_EQ(d.distinct_names, 12497u);
  EXPECT_EQ(d.train.count + d.validation.count, 306963u);
  double held_out = static_cast<double>(d.validation_distinct_names) / 12497.0;
  EXPECT_GT(held_out, 0.04);
  EXPECT_LT(held_out, 0.06);
}

}  // namespace
}  // namespace petname::data
