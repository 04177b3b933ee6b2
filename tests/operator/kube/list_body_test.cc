#include "operator/kube/list_body.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace petname::kube {
namespace {

using Json = nlohmann::json;

// A stream buffer that records how far it was read when each item came out.
class CountingBuffer : public std::stringbuf {
 public:
  explicit CountingBuffer(const std::string& text) : std::stringbuf(text) {}
  size_t consumed() const { return static_cast<size_t>(gptr() - eback()); }
};

TEST(ListBodyTest, HandsOutEachItemAsItArrivesAndKeepsTheRest) {
  Json list = {{"kind", "PodList"},
               {"apiVersion", "v1"},
               {"metadata", {{"resourceVersion", "7"}, {"continue", "next"}}},
               {"items", Json::array()}};
  for (int i = 0; i < 3; ++i) {
    list["items"].push_back({{"metadata", {{"name", "p" + std::to_string(i)}}},
                             {"spec", {{"containers", {{{"name", "c"}}}}}},
                             {"items", {1, 2}}});  // a nested "items" is part of the item
  }
  const std::string text = list.dump();
  CountingBuffer buffer(text);
  std::istream in(&buffer);
  std::vector<Json> items;
  std::vector<size_t> read_at;
  Json rest;
  ASSERT_TRUE(ReadList(
                  in,
                  [&](Json item) {
                    items.push_back(std::move(item));
                    read_at.push_back(buffer.consumed());
                  },
                  &rest)
                  .ok());
  ASSERT_EQ(items.size(), 3u);
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(items[i], list["items"][i]);
  EXPECT_EQ(rest["metadata"], list["metadata"]);
  EXPECT_EQ(rest["kind"], "PodList");
  EXPECT_EQ(rest["items"], Json::array());
  // Each item came out before the rest of the answer was read.
  EXPECT_LT(read_at[0], read_at[1]);
  EXPECT_LT(read_at[1], read_at[2]);
  EXPECT_LT(read_at[2], text.size());
}

TEST(ListBodyTest, AnItemsFieldThatIsNoArrayIsLeftInTheRest) {
  std::istringstream in(R"({"items": {"a": {"b": 1}, "c": 2}, "metadata": {}})");
  int handed = 0;
  Json rest;
  ASSERT_TRUE(ReadList(
                  in, [&](const Json&) { ++handed; }, &rest)
                  .ok());
  EXPECT_EQ(handed, 0);
  EXPECT_EQ(rest["items"], Json::parse(R"({"a": {"b": 1}, "c": 2})"));
}

TEST(ListBodyTest, ATruncatedOrForeignAnswerFails) {
  for (const char* text : {R"({"items": [{"a": 1}, {"b": )", "[1, 2]", "", "not json"}) {
    std::istringstream in(text);
    std::vector<Json> items;
    Json rest;
    EXPECT_FALSE(ReadList(
                     in, [&](Json item) { items.push_back(std::move(item)); }, &rest)
                     .ok())
        << text;
  }
  std::istringstream truncated(R"({"items": [{"a": 1}, {"b": )");
  std::vector<Json> items;
  Json rest;
  EXPECT_FALSE(ReadList(
                   truncated, [&](Json item) { items.push_back(std::move(item)); }, &rest)
                   .ok());
  EXPECT_EQ(items, std::vector<Json>{Json::parse(R"({"a": 1})")});  // handed out before the fault
}

}  // namespace
}  // namespace petname::kube
