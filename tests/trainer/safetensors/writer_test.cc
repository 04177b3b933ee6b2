#include "trainer/safetensors/writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

namespace petname::safetensors {
namespace {

uint64_t HeaderLength(const std::string& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<size_t>(i)]);
  return n;
}

nlohmann::json Header(const std::string& file) {
  return nlohmann::json::parse(file.substr(8, HeaderLength(file)));
}

// Float32 tensors as the writer takes them, viewing the values this object keeps.
class F32 {
 public:
  F32& Add(std::string name, std::vector<int64_t> shape, const std::vector<float>& values) {
    names_.push_back(std::move(name));
    shapes_.push_back(std::move(shape));
    bytes_.emplace_back(reinterpret_cast<const char*>(values.data()),
                        values.size() * sizeof(float));
    return *this;
  }
  std::vector<TensorData> tensors() const {
    std::vector<TensorData> out;
    for (size_t i = 0; i < names_.size(); ++i) {
      out.push_back({names_[i], Dtype::kF32, shapes_[i], bytes_[i]});
    }
    return out;
  }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<std::string> bytes_;
};

TEST(SafetensorsWriter, LaysOutHeaderThenLittleEndianFloats) {
  std::string file;
  ASSERT_TRUE(
      EncodeSafetensors(F32().Add("a", {2}, {1.0F, -2.0F}).Add("b.c", {1, 1}, {0.5F}).tensors(),
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
    ASSERT_TRUE(EncodeSafetensors(F32().Add("t", {1}, {3.0F}).tensors(),
                                  {{"k", std::string(len, 'x')}}, &file)
                    .ok());
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
  ASSERT_TRUE(
      EncodeSafetensors(F32().Add("s", {}, {7.0F}).Add("e", {0, 3}, {}).tensors(), {}, &file).ok());
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

TEST(SafetensorsWriter, OtherDtypesTakeTheirOwnSizes) {
  const int64_t step = 3;
  const std::string step_bytes(reinterpret_cast<const char*>(&step), sizeof(step));
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({{"step", Dtype::kI64, {}, step_bytes},
                                 {"rng", Dtype::kU8, {3}, std::string_view("abc")}},
                                {}, &file)
                  .ok());
  const nlohmann::json header = Header(file);
  EXPECT_EQ(header["step"],
            nlohmann::json::parse(R"({"dtype":"I64","shape":[],"data_offsets":[0,8]})"));
  EXPECT_EQ(header["rng"],
            nlohmann::json::parse(R"({"dtype":"U8","shape":[3],"data_offsets":[8,11]})"));
  EXPECT_EQ(file.substr(file.size() - 11), step_bytes + "abc");
}

TEST(SafetensorsWriter, RefusesBadTensors) {
  std::string file;
  const std::vector<F32> bad = {
      F32().Add("", {1}, {1.0F}),
      F32().Add("__metadata__", {1}, {1.0F}),
      F32().Add("a", {1}, {1.0F}).Add("a", {1}, {2.0F}),
      F32().Add("a", {2}, {1.0F}),
      F32().Add("a", {-1}, {}),
  };
  for (const F32& tensors : bad) {
    const Status st = EncodeSafetensors(tensors.tensors(), {}, &file);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  }
  EXPECT_EQ(
      EncodeSafetensors({{"rng", Dtype::kU8, {2}, std::string_view("abc")}}, {}, &file).code(),
      Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace petname::safetensors
