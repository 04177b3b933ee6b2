#include "trainer/data/names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"
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

TEST(SeattleDataTest, CountsMatchTheDataReadme) {
  if (!fs::exists(PETNAME_TEST_DATA)) GTEST_SKIP() << "no data at " << PETNAME_TEST_DATA;
  NameSourceOptions o;
  o.path = PETNAME_TEST_DATA;
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
