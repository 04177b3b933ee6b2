#include "trainer/data/gzip.h"

#include <gtest/gtest.h>

#include "tests/trainer/data/gzip_compress.h"

namespace petname::data {
namespace {

using petname::testing::GzipCompress;

constexpr int64_t kNoCap = int64_t{1} << 40;

TEST(GzipTest, RecognisedByTheMagicBytesOnly) {
  EXPECT_TRUE(IsGzip(GzipCompress("rex\n")));
  EXPECT_TRUE(IsGzip(std::string("\x1f\x8b", 2)));
  EXPECT_FALSE(IsGzip("\x1f"));
  EXPECT_FALSE(IsGzip(""));
  EXPECT_FALSE(IsGzip("Animal's Name\nRex\n"));
  EXPECT_FALSE(IsGzip(std::string("\x8b\x1f", 2)));
  EXPECT_FALSE(IsGzip("PK\x03\x04"));  // zip
}

TEST(GzipTest, RoundTripsAtEveryLevel) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "name " + std::to_string(i * 7919 % 10007) + "\n";
  for (int level = 1; level <= 9; ++level) {
    std::string got;
    ASSERT_TRUE(Gunzip(GzipCompress(text, level), kNoCap, &got).ok()) << level;
    EXPECT_EQ(got, text) << level;
  }
}

TEST(GzipTest, EmptyContentsAndConcatenatedMembers) {
  std::string got = "unchanged";
  ASSERT_TRUE(Gunzip(GzipCompress(""), kNoCap, &got).ok());
  EXPECT_EQ(got, "");
  ASSERT_TRUE(
      Gunzip(GzipCompress("rex\n") + GzipCompress("") + GzipCompress("spot\n"), kNoCap, &got).ok());
  EXPECT_EQ(got, "rex\nspot\n");
}

// The cap bounds the output: a few kilobytes that expand to 16 MiB are refused at a 1 MiB cap.
TEST(GzipTest, OutputOverTheCapIsRefused) {
  const std::string bomb = GzipCompress(std::string(size_t{16} << 20, 'a'));
  ASSERT_LT(bomb.size(), size_t{32} << 10);
  std::string got = "unchanged";
  Status st = Gunzip(bomb, int64_t{1} << 20, &got);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "the decompressed data is longer than 1048576 bytes");
  EXPECT_EQ(got, "unchanged");
  const std::string text = "rex\nspot\n";
  EXPECT_TRUE(Gunzip(GzipCompress(text), static_cast<int64_t>(text.size()), &got).ok());
  EXPECT_EQ(Gunzip(GzipCompress(text), static_cast<int64_t>(text.size()) - 1, &got).code(),
            Status::Code::kInvalidArgument);
}

TEST(GzipTest, TruncatedStreamIsCorruption) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "fido " + std::to_string(i) + "\n";
  const std::string whole = GzipCompress(text);
  for (size_t keep : {size_t{2}, size_t{10}, whole.size() / 2, whole.size() - 1}) {
    std::string got = "unchanged";
    Status st = Gunzip(whole.substr(0, keep), kNoCap, &got);
    EXPECT_EQ(st.code(), Status::Code::kCorruption) << keep;
    EXPECT_EQ(st.message(), "truncated gzip data: it ends after " + std::to_string(keep) +
                                " bytes, before its compressed stream does");
    EXPECT_EQ(got, "unchanged");
  }
}

TEST(GzipTest, DamagedStreamIsCorruptionNamingZlibsReason) {
  std::string bad_crc = GzipCompress("rex\nspot\n");
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 0x01);
  std::string got;
  Status st = Gunzip(bad_crc, kNoCap, &got);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), "damaged gzip data: incorrect data check");

  std::string bad_method = GzipCompress("rex\n");
  bad_method[2] = 7;  // compression method: only 8 (deflate) exists
  st = Gunzip(bad_method, kNoCap, &got);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), "damaged gzip data: unknown compression method");

  st = Gunzip(GzipCompress("rex\n") + "trailing bytes", kNoCap, &got);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), "damaged gzip data: incorrect header check");
}

}  // namespace
}  // namespace petname::data
