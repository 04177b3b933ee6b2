#include "operator/api/quantity.h"

#include <gtest/gtest.h>

namespace petname::api {
namespace {

using Json = nlohmann::json;

TEST(QuantityTest, WholeCoresRoundDown) {
  const std::pair<Json, int64_t> cases[] = {
      {2, 2},       {0, 0},      {"2", 2},      {"1500m", 1}, {"999m", 0},
      {"2000m", 2}, {"0.5", 0},  {".5", 0},     {"2.", 2},    {"3.99", 3},
      {"2e0", 2},   {"2E1", 20}, {"1.5e1", 15}, {"0064", 64}, {"16000m", 16},
  };
  for (const auto& [quantity, want] : cases) {
    int64_t cores = -1;
    EXPECT_TRUE(WholeCpus(quantity, &cores)) << quantity;
    EXPECT_EQ(cores, want) << quantity;
  }
}

TEST(QuantityTest, HugeValuesSaturate) {
  for (const Json& q : {Json("1e30"), Json("99999999999999999999"), Json(uint64_t{1} << 63)}) {
    int64_t cores = 0;
    EXPECT_TRUE(WholeCpus(q, &cores)) << q;
    EXPECT_EQ(cores, kMaxWholeCpus) << q;
  }
}

TEST(QuantityTest, RefusesWhatIsNoCpuQuantity) {
  for (const Json& q : {Json(), Json(-1), Json(0.5), Json(""), Json("."), Json("m"), Json("-1"),
                        Json("1e"), Json("1e+2"), Json("25e-1"), Json("1k"), Json("1Gi"),
                        Json("1.2.3"), Json("1e2m"), Json(" 1"), Json(true), Json::array()}) {
    int64_t cores = 7;
    EXPECT_FALSE(WholeCpus(q, &cores)) << q;
    EXPECT_EQ(cores, 7) << q;
  }
}

TEST(QuantityTest, MemoryInBytes) {
  const std::pair<Json, int64_t> cases[] = {
      {0, 0},
      {1024, 1024},
      {"1Ki", 1024},
      {"1Gi", int64_t{1} << 30},
      {"1.5Gi", int64_t{3} << 29},
      {".5Mi", int64_t{1} << 19},
      {"2k", 2000},
      {"64M", 64000000},
      {"1e3", 1000},
      {"129e6", 129000000},
      {"512", 512},
  };
  for (const auto& [quantity, want] : cases) {
    int64_t bytes = -1;
    EXPECT_TRUE(MemoryBytes(quantity, &bytes)) << quantity;
    EXPECT_EQ(bytes, want) << quantity;
  }
  int64_t bytes = 0;
  EXPECT_TRUE(MemoryBytes("9Ei", &bytes));
  EXPECT_EQ(bytes, kMaxMemoryBytes);
}

TEST(QuantityTest, RefusesWhatIsNoMemoryQuantity) {
  for (const Json& q : {Json(), Json(-1), Json(0.5), Json(""), Json("Gi"), Json("-1Gi"),
                        Json("1gi"), Json("1Ki "), Json("1KiB"), Json("1e"), Json("1e-3"),
                        Json("1m"), Json("1.2.3Gi"), Json("1ki"), Json(true), Json::object()}) {
    int64_t bytes = 7;
    EXPECT_FALSE(MemoryBytes(q, &bytes)) << q;
    EXPECT_EQ(bytes, 7) << q;
  }
}

}  // namespace
}  // namespace petname::api
