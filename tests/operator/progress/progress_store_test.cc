#include "operator/progress/progress_store.h"

#include <gtest/gtest.h>

namespace petname::progress {
namespace {

using Json = nlohmann::json;

TEST(ProgressStoreTest, PutReportsChangesOnly) {
  ProgressStore store;
  EXPECT_TRUE(store.Put("ns/a", {{"epoch", 1}}, "t1"));
  EXPECT_FALSE(store.Put("ns/a", {{"epoch", 1}}, "t2"));  // same values: no new status write
  Json status = Json::object();
  store.Apply("ns/a", Json::object(), &status);
  EXPECT_EQ(status["progress"], (Json{{"epoch", 1}, {"updateTime", "t1"}}));
  EXPECT_TRUE(store.Put("ns/a", {{"epoch", 2}}, "t3"));
  store.Apply("ns/a", Json::object(), &status);
  EXPECT_EQ(status["progress"]["updateTime"], "t3");
}

TEST(ProgressStoreTest, ApplyKeepsTheWrittenProgressWithoutAScrape) {
  ProgressStore store;
  Json current = {{"phase", "Succeeded"}, {"progress", {{"epoch", 5}}}};
  Json status = {{"phase", "Succeeded"}};
  store.Apply("ns/a", current, &status);
  EXPECT_EQ(status["progress"]["epoch"], 5);
  Json none = {{"phase", "Pending"}};
  store.Apply("ns/b", Json::object(), &none);
  EXPECT_FALSE(none.contains("progress"));
}

TEST(ProgressStoreTest, RetainDropsDeletedJobs) {
  ProgressStore store;
  store.Put("ns/a", {{"epoch", 1}}, "t");
  store.Put("ns/b", {{"epoch", 1}}, "t");
  store.Retain({"ns/b"});
  Json status = Json::object();
  store.Apply("ns/a", Json::object(), &status);
  EXPECT_FALSE(status.contains("progress"));
  store.Apply("ns/b", Json::object(), &status);
  EXPECT_TRUE(status.contains("progress"));
}

}  // namespace
}  // namespace petname::progress
