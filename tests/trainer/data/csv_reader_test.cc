#include "trainer/data/csv_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace petname::data {
namespace {

using Rows = std::vector<std::vector<std::string>>;

Status ReadAll(std::string_view text, Rows* rows) {
  CsvReader reader(text);
  std::vector<std::string> fields;
  bool done = false;
  while (true) {
    PETNAME_RETURN_IF_ERROR(reader.Next(&fields, &done));
    if (done) return Status::Ok();
    rows->push_back(fields);
  }
}

TEST(CsvReaderTest, PlainRecordsWithAndWithoutFinalNewline) {
  Rows rows;
  ASSERT_TRUE(ReadAll("a,b\nc,d", &rows).ok());
  EXPECT_EQ(rows, (Rows{{"a", "b"}, {"c", "d"}}));
  rows.clear();
  ASSERT_TRUE(ReadAll("a,b\nc,d\n", &rows).ok());
  EXPECT_EQ(rows, (Rows{{"a", "b"}, {"c", "d"}}));
}

TEST(CsvReaderTest, QuotedFieldsWithCommasNewlinesAndDoubledQuotes) {
  Rows rows;
  ASSERT_TRUE(ReadAll("\"a,1\",\"say \"\"hi\"\"\",\"two\nlines\"\nx,,\"\"\n", &rows).ok());
  EXPECT_EQ(rows, (Rows{{"a,1", "say \"hi\"", "two\nlines"}, {"x", "", ""}}));
}

TEST(CsvReaderTest, CrlfAndByteOrderMark) {
  Rows rows;
  ASSERT_TRUE(ReadAll("\xEF\xBB\xBFname,n\r\n\"Spot\",1\r\nRex,2\r\n", &rows).ok());
  EXPECT_EQ(rows, (Rows{{"name", "n"}, {"Spot", "1"}, {"Rex", "2"}}));
}

TEST(CsvReaderTest, QuoteInsideUnquotedFieldIsLiteral) {
  Rows rows;
  ASSERT_TRUE(ReadAll("it\"s,b\n", &rows).ok());
  EXPECT_EQ(rows, (Rows{{"it\"s", "b"}}));
}

TEST(CsvReaderTest, UnterminatedQuoteNamesItsLine) {
  Rows rows;
  Status st = ReadAll("a,b\nc,d\ne,\"open\nmore\n", &rows);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("line 3"), std::string::npos) << st.message();
}

TEST(CsvReaderTest, GarbageAfterClosingQuoteIsCorruption) {
  Rows rows;
  Status st = ReadAll("a,b\n\"x\"y,z\n", &rows);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("line 2"), std::string::npos) << st.message();
}

TEST(CsvReaderTest, RecordLineCountsEmbeddedNewlines) {
  CsvReader reader("\"a\nb\",c\nd\n");
  std::vector<std::string> fields;
  bool done = false;
  ASSERT_TRUE(reader.Next(&fields, &done).ok());
  EXPECT_EQ(reader.record_line(), 1u);
  ASSERT_TRUE(reader.Next(&fields, &done).ok());
  EXPECT_EQ(reader.record_line(), 3u);
  EXPECT_EQ(fields, (std::vector<std::string>{"d"}));
}

TEST(CsvReaderTest, ARecordOverTheFieldBoundIsRefusedNamingItsLine) {
  const CsvLimits limits{4, 1 << 20};
  CsvReader reader("a,b,c,d\n,,,,\n", limits);
  std::vector<std::string> fields;
  bool done = false;
  ASSERT_TRUE(reader.Next(&fields, &done).ok());
  EXPECT_EQ(fields.size(), 4u);
  const Status st = reader.Next(&fields, &done);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "line 2: a record of more than 4 fields");
}

TEST(CsvReaderTest, ARecordOverTheByteBoundIsRefusedQuotedOrNot) {
  const CsvLimits limits{1024, 8};
  for (const std::string text : {"12345678\n", "\"123456\"\n", "1,2,3,4\r\n"}) {
    CsvReader reader(text, limits);
    std::vector<std::string> fields;
    bool done = false;
    EXPECT_TRUE(reader.Next(&fields, &done).ok()) << text;
  }
  for (const std::string text :
       {"ok\n123456789\n", "ok\n\"1234\n5678\",\n", "ok\n1,2,3,4,5\n", "ok\n\"123456789"}) {
    CsvReader reader(text, limits);
    std::vector<std::string> fields;
    bool done = false;
    ASSERT_TRUE(reader.Next(&fields, &done).ok());
    const Status st = reader.Next(&fields, &done);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_EQ(st.message(), "line 2: a record of more than 8 bytes") << text;
  }
}

TEST(CsvReaderTest, SixteenMebiCommasAreRefusedAtTheDefaultBound) {
  const std::string text = "Animal's Name\n" + std::string(size_t{16} << 20, ',');
  CsvReader reader(text);
  std::vector<std::string> fields;
  bool done = false;
  ASSERT_TRUE(reader.Next(&fields, &done).ok());
  const Status st = reader.Next(&fields, &done);
  EXPECT_EQ(st.message(), "line 2: a record of more than 1024 fields");
  EXPECT_LE(fields.size(), 1024u);
}

}  // namespace
}  // namespace petname::data
