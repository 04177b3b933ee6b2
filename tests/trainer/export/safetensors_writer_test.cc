#include "trainer/export/safetensors_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

namespace petname::exporter {
namespace {

uint64_t HeaderLength(const std::string& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<size_t>(i)]);
  return n;
}

nlohmann::json Header(const std::string& file) {
  return nlohmann::json::parse(file.substr(8, HeaderLength(file)));
}

TEST(SafetensorsWriter, LaysOutHeaderThenLittleEndianFloats) {
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({{"a", {2}, {1.0F, -2.0F}}, {"b.c", {1, 1}, {0.5F}}},
                                {{"window", "8"}}, &file)
                  .ok());
  const uint64_t n = HeaderLength(file);
  EXPECT_EQ((8 + n) % 8, 0U);
  ASSERT_EQ(file.size(), 8 + n + 12);
  const nlohmann::json header = Header(file);
  EXPECT_EQ(header["a"],
            nlohmann::json::parse(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"));
  EXPECT_EQ(header["b.c"],
            nlohmann::json::parse(R"({"dtype":"F32","shape":[1,1],"data_offsets":[8,12]})"));
  EXPECT_EQ(header["__metadata__"], nlohmann::json::parse(R"({"window":"8"})"));
  EXPECT_EQ(header.size(), 3U);
  const std::string data = file.substr(8 + n);
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000, 0.5f = 0x3f000000, least significant byte first.
  EXPECT_EQ(data, std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0\x00\x00\x00\x3f", 12));
}

TEST(SafetensorsWriter, PadsTheHeaderWithSpacesToEightBytes) {
  for (size_t len = 0; len < 17; ++len) {
    std::string file;
    ASSERT_TRUE(
        EncodeSafetensors({{"t", {1}, {3.0F}}}, {{"k", std::string(len, 'x')}}, &file).ok());
    const uint64_t n = HeaderLength(file);
    EXPECT_EQ((8 + n) % 8, 0U) << len;
    const std::string header = file.substr(8, n);
    const size_t close = header.rfind('}');
    EXPECT_LT(header.size() - close - 1, 8U);
    EXPECT_EQ(header.find_first_not_of(' ', close + 1), std::string::npos) << len;
    EXPECT_EQ(Header(file)["__metadata__"]["k"], std::string(len, 'x'));
  }
}

TEST(SafetensorsWriter, EmptyFileHasOnlyMetadata) {
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({}, {}, &file).ok());
  EXPECT_EQ(file.size(), 8 + HeaderLength(file));
  EXPECT_EQ(Header(file), nlohmann::json::parse(R"({"__metadata__":{}})"));
}

TEST(SafetensorsWriter, ScalarAndEmptyTensors) {
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({{"s", {}, {7.0F}}, {"e", {0, 3}, {}}}, {}, &file).ok());
  const nlohmann::json header = Header(file);
  EXPECT_EQ(header["s"]["shape"], nlohmann::json::array());
  EXPECT_EQ(header["s"]["data_offsets"], nlohmann::json::parse("[0,4]"));
  EXPECT_EQ(header["e"]["data_offsets"], nlohmann::json::parse("[4,4]"));
  EXPECT_EQ(file.size(), 8 + HeaderLength(file) + 4);
}

TEST(SafetensorsWriter, InvalidUtf8InMetadataIsReplacedNotThrown) {
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({}, {{"owner", "run \xff"}}, &file).ok());
  EXPECT_EQ(Header(file)["__metadata__"]["owner"], "run \xef\xbf\xbd");
}

TEST(SafetensorsWriter, RefusesBadTensors) {
  std::string file;
  const std::vector<std::vector<F32Tensor>> bad = {
      {{"", {1}, {1.0F}}},
      {{"__metadata__", {1}, {1.0F}}},
      {{"a", {1}, {1.0F}}, {"a", {1}, {2.0F}}},
      {{"a", {2}, {1.0F}}},
      {{"a", {-1}, {}}},
  };
  for (const auto& tensors : bad) {
    const Status st = EncodeSafetensors(tensors, {}, &file);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  }
}

}  // namespace
}  // namespace petname::exporter
