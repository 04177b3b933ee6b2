#include "operator/kube/lease.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

TEST(LeaseTest, JsonRoundTripKeepsTheRecordAndResourceVersion) {
  LeaseRecord r{"a_1", 15, "2026-11-22T05:00:00.000000Z", "2026-11-22T05:00:02.000000Z", 3, "42"};
  nlohmann::json j = LeaseToJson("ops", "petname-operator", r);
  EXPECT_EQ(j["metadata"]["namespace"], "ops");
  EXPECT_EQ(j["metadata"]["resourceVersion"], "42");
  LeaseRecord back = LeaseFromJson(j);
  EXPECT_EQ(back.holder, "a_1");
  EXPECT_EQ(back.lease_duration_seconds, 15);
  EXPECT_EQ(back.acquire_time, r.acquire_time);
  EXPECT_EQ(back.renew_time, r.renew_time);
  EXPECT_EQ(back.transitions, 3);
  EXPECT_EQ(back.resource_version, "42");
  EXPECT_FALSE(LeaseToJson("ops", "x", LeaseRecord{})["metadata"].contains("resourceVersion"));
}

TEST(LeaseTest, OnlyAFreeExpiredOrOwnLeaseMayBeWritten) {
  LeaseRecord held{"b", 15, "", "", 0, "7"};
  EXPECT_FALSE(MayAcquire(held, "a", false));
  EXPECT_TRUE(MayAcquire(held, "a", true));
  EXPECT_TRUE(MayAcquire(held, "b", false));
  LeaseRecord released = ReleasedRecord(held, "t");
  EXPECT_TRUE(released.holder.empty());
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_TRUE(MayAcquire(released, "a", false));
}

TEST(LeaseTest, TakingOverCountsATransitionRenewingDoesNot) {
  LeaseRecord fresh = NextRecord(LeaseRecord{}, "a", 15, "t0");
  EXPECT_EQ(fresh.holder, "a");
  EXPECT_EQ(fresh.transitions, 0);
  EXPECT_EQ(fresh.acquire_time, "t0");
  fresh.resource_version = "1";
  LeaseRecord renewed = NextRecord(fresh, "a", 15, "t1");
  EXPECT_EQ(renewed.transitions, 0);
  EXPECT_EQ(renewed.acquire_time, "t0");
  EXPECT_EQ(renewed.renew_time, "t1");
  EXPECT_EQ(renewed.resource_version, "1");  // the write is conditional on what was read
  LeaseRecord taken = NextRecord(renewed, "b", 15, "t2");
  EXPECT_EQ(taken.holder, "b");
  EXPECT_EQ(taken.transitions, 1);
  EXPECT_EQ(taken.acquire_time, "t2");
}

TEST(LeaseTest, MicroTimeHasMicroseconds) {
  std::string t = MicroTimeNow();
  ASSERT_EQ(t.size(), 27u) << t;
  EXPECT_EQ(t[19], '.');
  EXPECT_EQ(t.back(), 'Z');
}

TEST(LeaseTest, ParsesDurations) {
  std::chrono::milliseconds d{};
  ASSERT_TRUE(ParseDuration("15s", &d).ok());
  EXPECT_EQ(d.count(), 15000);
  ASSERT_TRUE(ParseDuration("500ms", &d).ok());
  EXPECT_EQ(d.count(), 500);
  ASSERT_TRUE(ParseDuration("2m", &d).ok());
  EXPECT_EQ(d.count(), 120000);
  for (const char* bad : {"", "s", "15", "15x", "-1s", "0s", "1.5s", "9999999999s"}) {
    EXPECT_FALSE(ParseDuration(bad, &d).ok()) << bad;
  }
}

}  // namespace
}  // namespace petname::kube
