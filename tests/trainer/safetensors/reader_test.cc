// The safetensors reader against files whose header lies: every lie is refused, naming it,
// before anything is copied; honest files round-trip through the writer.
#include "trainer/safetensors/reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "trainer/safetensors/writer.h"

namespace petname::safetensors {
namespace {

using nlohmann::json;

std::string Bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Two tensors as a model would have them: "w" F32 [2, 3] and "step" I64 [].
const std::vector<TensorSpec>& Expected() {
  static const std::vector<TensorSpec> expected = {{"w", Dtype::kF32, {2, 3}},
                                                   {"step", Dtype::kI64, {}}};
  return expected;
}

// A file made of `header` (as JSON text) and `data`, the header's length as given or true.
std::string File(const std::string& header, const std::string& data, uint64_t length) {
  std::string file;
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return file + header + data;
}

std::string File(const json& header, const std::string& data) {
  const std::string text = header.dump();
  return File(text, data, text.size());
}

// The honest header for Expected(): w at [0, 24), step at [24, 32).
json Honest() {
  return json::parse(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                         "step": {"dtype": "I64", "shape": [], "data_offsets": [24, 32]},
                         "__metadata__": {"format": "pt"}})");
}

const std::string kData(32, '\x01');

TEST(SafetensorsReader, ReadsWhatTheWriterWrote) {
  const std::string w = Bytes({1, 2, 3, 4, 5, 6});
  const int64_t step = 42;
  const std::string s(reinterpret_cast<const char*>(&step), sizeof(step));
  std::string file;
  ASSERT_TRUE(EncodeSafetensors({{"w", Dtype::kF32, {2, 3}, w}, {"step", Dtype::kI64, {}, s}},
                                {{"k", "v"}}, &file)
                  .ok());
  std::vector<std::string_view> data;
  ASSERT_TRUE(ParseSafetensors(file, Expected(), &data).ok());
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0], w);
  EXPECT_EQ(data[1], s);
  EXPECT_LE(static_cast<int64_t>(file.size()), MaxFileBytes(Expected()));
}

TEST(SafetensorsReader, TensorsMayComeInAnyOrderOfOffsets) {
  json header = Honest();
  header["step"]["data_offsets"] = {0, 8};
  header["w"]["data_offsets"] = {8, 32};
  std::vector<std::string_view> data;
  ASSERT_TRUE(ParseSafetensors(File(header, kData), Expected(), &data).ok());
  EXPECT_EQ(data[1].size(), 8u);
}

struct Lie {
  const char* name;
  std::string file;
  const char* error;
};

std::vector<Lie> Lies() {
  auto with = [](const char* pointer, const json& value) {
    json h = Honest();
    h[json::json_pointer(pointer)] = value;
    return File(h, kData);
  };
  json extra = Honest();
  extra["evil"] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {32, 32}}};
  json missing = Honest();
  missing.erase("step");
  return {
      {"short file", "abc", "has 3 bytes, too few for the header length"},
      {"header length 2^62", File("{}", "", uint64_t{1} << 62),
       "header length 4611686018427387904 is more than 1048576"},
      {"header length past the end", File("{}", "", 4096),
       "header length 4096 runs past the end of the file (10 bytes)"},
      {"header not JSON", File("{\"w\":", "", 5), "header is not a JSON object"},
      {"header an array", File(json::array(), ""), "header is not a JSON object"},
      {"a tensor missing", File(missing, kData), "has no tensor step"},
      {"an extra tensor", File(extra, kData), "has an unexpected tensor evil"},
      {"another shape", with("/w/shape", {1024, 3}),
       "tensor w is F32 [1024, 3], expected F32 [2, 3]"},
      {"another dtype", with("/w/dtype", "F64"), "tensor w is F64 [2, 3], expected F32 [2, 3]"},
      {"a negative dimension", with("/w/shape", {-2, 3}), "tensor w has a dimension"},
      {"offsets wider than the shape", with("/w/data_offsets", {0, 1 << 30}),
       "tensor w has data_offsets [0, 1073741824], but F32 [2, 3] takes 24 bytes"},
      {"offsets reversed", with("/w/data_offsets", {24, 0}), "end before they begin"},
      {"offsets not numbers", with("/w/data_offsets", "0-24"), "has no data_offsets"},
      {"overlapping tensors", with("/step/data_offsets", {16, 24}),
       "tensor step begins at byte 16 of the data, not at 24"},
      {"a gap", with("/step/data_offsets", {28, 36}), "begins at byte 28 of the data, not at 24"},
      {"data beyond the tensors", File(Honest(), kData + "trailing"),
       "the tensors take 32 bytes, but the data after the header has 40"},
      {"data shorter than the tensors", File(Honest(), kData.substr(0, 30)),
       "the tensors take 32 bytes, but the data after the header has 30"},
      {"metadata not text", with("/__metadata__", {{"k", 1}}),
       "__metadata__ is not an object of strings"},
      {"a tensor that is not an object", with("/w", "F32"),
       "tensor w is not described by a JSON object"},
  };
}

TEST(SafetensorsReader, EveryLieIsRefusedNamingIt) {
  for (const Lie& lie : Lies()) {
    SCOPED_TRACE(lie.name);
    std::vector<std::string_view> data;
    const Status st = ParseSafetensors(lie.file, Expected(), &data);
    EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find(lie.error), std::string::npos) << st.message();
    EXPECT_TRUE(data.empty());
  }
}

// A header of a million dimensions or deeply nested arrays stays within the header cap and is
// refused without exhausting memory or the stack.
TEST(SafetensorsReader, HostileHeadersWithinTheCapAreRefused) {
  json h = Honest();
  h["w"]["shape"] = json::array();
  for (int i = 0; i < 100000; ++i) h["w"]["shape"].push_back(1);
  std::vector<std::string_view> data;
  Status st = ParseSafetensors(File(h, kData), Expected(), &data);
  EXPECT_NE(st.message().find("tensor w is F32 [1, 1, 1, 1, 1, 1, 1, 1, ... (100000 dimensions)]"),
            std::string::npos)
      << st.message();
  const std::string deep = std::string(500000, '[') + std::string(500000, ']');
  st = ParseSafetensors(File(deep, "", deep.size()), Expected(), &data);
  EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
}

TEST(SafetensorsReader, TheCapIsTheTensorsAndTheLargestHeader) {
  EXPECT_EQ(TensorBytes(Expected()[0]), 24u);
  EXPECT_EQ(TensorBytes(Expected()[1]), 8u);
  EXPECT_EQ(MaxFileBytes(Expected()), static_cast<int64_t>(8 + kMaxHeaderBytes + 32));
  EXPECT_EQ(MaxFileBytes({}), static_cast<int64_t>(8 + kMaxHeaderBytes));
}

}  // namespace
}  // namespace petname::safetensors
