#include "trainer/distributed/store_table.h"

#include <gtest/gtest.h>

#include <limits>

namespace petname::dist::store {
namespace {

TEST(StoreTableTest, SetGetDeleteCheckAndCount) {
  Table t(1 << 20);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kGet, {"a"})).code, Code::kMissing);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kSet, {"a"}, "1")).code, Code::kOk);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kSet, {"b"}, "")).code, Code::kOk);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kGet, {"a"})).value, "1");
  EXPECT_EQ(t.Apply(MakeRequest(Op::kNumKeys, {})).number, 2);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kCheck, {"a", "b"})).number, 1);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kCheck, {"a", "c"})).number, 0);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kWait, {"a", "c"})).code, Code::kMissing);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kDelete, {"a"})).number, 1);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kDelete, {"a"})).number, 0);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kWait, {"b"})).code, Code::kOk);
  EXPECT_TRUE(t.Ready({"b"}));
  EXPECT_FALSE(t.Ready({"a"}));
}

TEST(StoreTableTest, AddKeepsADecimalCounter) {
  Table t(1 << 20);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kAdd, {"n"}, "", 3)).number, 3);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kAdd, {"n"}, "", -5)).number, -2);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kGet, {"n"})).value, "-2");
  t.Apply(MakeRequest(Op::kSet, {"text"}, "abc"));
  Reply r = t.Apply(MakeRequest(Op::kAdd, {"text"}, "", 1));
  EXPECT_EQ(r.code, Code::kError);
  EXPECT_EQ(r.value, "key text does not hold a number");
  t.Apply(MakeRequest(Op::kSet, {"big"}, std::to_string(std::numeric_limits<int64_t>::max())));
  EXPECT_EQ(t.Apply(MakeRequest(Op::kAdd, {"big"}, "", 1)).code, Code::kError);
}

TEST(StoreTableTest, CompareSetAsTcpStore) {
  Table t(1 << 20);
  Request cas = MakeRequest(Op::kCompareSet, {"k"}, "new");
  cas.expected = "old";
  EXPECT_EQ(t.Apply(cas).value, "old") << "absent, expecting a value: the expectation back";
  EXPECT_EQ(t.Apply(MakeRequest(Op::kGet, {"k"})).code, Code::kMissing);
  cas.expected = "";
  EXPECT_EQ(t.Apply(cas).value, "new") << "absent, expecting nothing: set";
  cas.value = "newer";
  EXPECT_EQ(t.Apply(cas).value, "new") << "another value: left alone, the value back";
  cas.expected = "new";
  EXPECT_EQ(t.Apply(cas).value, "newer");
  EXPECT_EQ(t.Apply(MakeRequest(Op::kGet, {"k"})).value, "newer");
}

TEST(StoreTableTest, KeysAndValuesTogetherAreBounded) {
  Table t(10);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kSet, {"ab"}, "12345678")).code, Code::kOk);
  EXPECT_EQ(t.bytes(), 10u);
  Reply r = t.Apply(MakeRequest(Op::kSet, {"c"}, ""));
  EXPECT_EQ(r.code, Code::kError);
  EXPECT_EQ(r.value, "the store would hold 11 bytes, over its limit of 10");
  EXPECT_EQ(t.Apply(MakeRequest(Op::kAdd, {"c"}, "", 1)).code, Code::kError);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kSet, {"ab"}, "1")).code, Code::kOk) << "a smaller value fits";
  EXPECT_EQ(t.bytes(), 3u);
  EXPECT_EQ(t.Apply(MakeRequest(Op::kDelete, {"ab"})).number, 1);
  EXPECT_EQ(t.bytes(), 0u);
}

}  // namespace
}  // namespace petname::dist::store
