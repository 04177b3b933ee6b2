#include "trainer/data/data_check.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_paths.h"

namespace petname::data {
namespace {

// A name list of `usable` names read from `records` records, `empty` of them empty and the
// rest dropped for characters outside the vocabulary.
NameList List(size_t usable, size_t records, size_t empty = 0) {
  NameList l;
  for (size_t i = 0; i < usable; ++i)
    l.names.push_back("n" + std::string(1, static_cast<char>('a' + i % 26)));
  l.records = records;
  l.dropped_empty = empty;
  l.dropped_bad_chars = records - usable - empty;
  return l;
}

Status Check(const NameList& l, double validation_fraction = 0) {
  return CheckTrainable("pets.txt", l, BuildDataset(l.names, {8, validation_fraction}));
}

TEST(DataCheckTest, MostlyUnusableRecordsAreRefusedNamingTheCounts) {
  // The Seattle table gzipped and read as text: 4 usable of 2437 lines.
  Status st = Check(List(4, 2437, 13));
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message().rfind("data file pets.txt: only 4 of 2424 non-empty records give a "
                               "usable name (2420 have characters outside a-z - . and space, "
                               "0 are short rows); at least half must: ",
                               0),
            0u)
      << st.message();
  EXPECT_NE(st.message().find("gzip, not zip, xz or bzip2"), std::string::npos);
  EXPECT_NE(st.message().find("--column"), std::string::npos);
}

TEST(DataCheckTest, HalfOfTheNonEmptyRecordsIsEnough) {
  EXPECT_TRUE(Check(List(10, 20)).ok());
  EXPECT_EQ(Check(List(9, 20)).code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Check(List(500, 1000)).ok());
  EXPECT_EQ(Check(List(499, 1000)).code(), Status::Code::kInvalidArgument);
  // Empty names are missing data, not a wrong file: they do not count against it.
  EXPECT_TRUE(Check(List(20, 1000, 960)).ok());
  EXPECT_EQ(Check(List(19, 1000, 960)).code(), Status::Code::kInvalidArgument);
  NameList short_rows = List(10, 30);
  short_rows.dropped_bad_chars = 0;
  short_rows.dropped_short_row = 20;
  EXPECT_EQ(Check(short_rows).code(), Status::Code::kInvalidArgument);
}

TEST(DataCheckTest, FewerThanTwentyNonEmptyRecordsAreNotJudged) {
  EXPECT_TRUE(Check(List(1, 19)).ok());
  EXPECT_TRUE(Check(List(1, 100, 81)).ok());
  EXPECT_EQ(Check(List(1, 100, 80)).code(), Status::Code::kInvalidArgument);
}

TEST(DataCheckTest, PositiveValidationFractionMustHoldOutAName) {
  NameList few = List(4, 4);
  few.names = {"rex", "spot", "bella", "max"};
  Dataset d = BuildDataset(few.names, {8, 0.05});
  ASSERT_EQ(d.validation.count, 0u);
  Status st = CheckTrainable("pets.txt", few, d);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "data file pets.txt: no validation examples: none of its 4 distinct names falls in "
            "the --validation-fraction 0.05 hold-out; use more names (a file with more, or a "
            "larger --max-names), a larger --validation-fraction, or --validation-fraction 0 to "
            "train without validation");
  EXPECT_TRUE(CheckTrainable("pets.txt", few, BuildDataset(few.names, {8, 0})).ok());
  Dataset half = BuildDataset(few.names, {8, 0.5});
  ASSERT_GT(half.validation.count, 0u);
  ASSERT_GT(half.train.count, 0u);
  EXPECT_TRUE(CheckTrainable("pets.txt", few, half).ok());
}

TEST(DataCheckTest, EveryNameHeldOutLeavesNoTrainingExamples) {
  NameList one = List(1, 1);
  Dataset all = BuildDataset(one.names, {8, 0.9999999});
  ASSERT_EQ(all.train.count, 0u);
  Status st = CheckTrainable("pets.txt", one, all);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "no training examples left after the validation split: --validation-fraction "
            "0.9999999 holds out all 1 distinct names; lower it or use more names");
}

TEST(DataCheckTest, SummaryLine) {
  NameList l = List(2, 5, 1);
  l.names = {"rex", "rex"};
  l.dropped_short_row = 1;
  l.dropped_bad_chars = 1;
  EXPECT_EQ(DataSummary(l, BuildDataset(l.names, {8, 0})),
            "data: 2 usable names (1 distinct) of 5 records; dropped 1 empty, 1 with characters "
            "outside the vocabulary, 1 short rows; 8 training and 0 validation examples (0 names "
            "held out)");
}

TEST(SeattleDataTest, PassesTheChecksWholeAndInSmallPrefixes) {
  if (!std::filesystem::exists(testing::TestData())) GTEST_SKIP() << "no data";
  for (size_t max_names : {size_t{0}, size_t{5}, size_t{50}, size_t{200}, size_t{2000}}) {
    NameList l;
    ASSERT_TRUE(LoadNames({testing::TestData(), "", max_names}, &l).ok());
    EXPECT_TRUE(CheckTrainable(testing::TestData(), l, BuildDataset(l.names, EncodeOptions())).ok())
        << max_names;
  }
}

}  // namespace
}  // namespace petname::data
