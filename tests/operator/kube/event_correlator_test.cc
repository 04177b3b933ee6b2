#include "operator/kube/event_correlator.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

const EventKey kFailed{"uid-1", "Warning", "FailedCreate"};

TEST(EventCorrelatorTest, RepeatsPatchTheFirstEventWithAGrowingCount) {
  EventCorrelator c;
  EventDecision d = c.Observe(kFailed, "job.a", "2026-01-01T00:00:00Z");
  EXPECT_TRUE(d.create);
  EXPECT_EQ(d.name, "job.a");
  EXPECT_EQ(d.count, 1);
  for (int n = 2; n <= 5; ++n) {
    d = c.Observe(kFailed, "job.other", "2026-01-01T00:00:0" + std::to_string(n) + "Z");
    EXPECT_FALSE(d.create);
    EXPECT_EQ(d.name, "job.a");
    EXPECT_EQ(d.count, n);
    EXPECT_EQ(d.first_time, "2026-01-01T00:00:00Z");
  }
  EXPECT_EQ(c.size(), 1u);
}

TEST(EventCorrelatorTest, KeyedByObjectTypeAndReason) {
  EventCorrelator c;
  EXPECT_TRUE(c.Observe(kFailed, "a", "t").create);
  EXPECT_TRUE(c.Observe({"uid-2", "Warning", "FailedCreate"}, "b", "t").create);
  EXPECT_TRUE(c.Observe({"uid-1", "Normal", "FailedCreate"}, "c", "t").create);
  EXPECT_TRUE(c.Observe({"uid-1", "Warning", "Restarting"}, "d", "t").create);
  EXPECT_FALSE(c.Observe(kFailed, "e", "t").create);
  EXPECT_EQ(c.size(), 4u);
}

TEST(EventCorrelatorTest, ForgetStartsANewEvent) {
  EventCorrelator c;
  c.Observe(kFailed, "a", "t");
  c.Observe(kFailed, "x", "t");
  c.Forget(kFailed);
  EventDecision d = c.Observe(kFailed, "b", "t2");
  EXPECT_TRUE(d.create);
  EXPECT_EQ(d.name, "b");
  EXPECT_EQ(d.count, 1);
  c.Forget({"unknown", "Normal", "X"});
  EXPECT_EQ(c.size(), 1u);
}

TEST(EventCorrelatorTest, EvictsTheLeastRecentlyUsedKey) {
  EventCorrelator c(2);
  const EventKey a{"a", "Warning", "R"}, b{"b", "Warning", "R"}, z{"z", "Warning", "R"};
  c.Observe(a, "a.1", "t");
  c.Observe(b, "b.1", "t");
  c.Observe(a, "a.2", "t");                      // a is now the most recent
  EXPECT_TRUE(c.Observe(z, "z.1", "t").create);  // evicts b
  EXPECT_EQ(c.size(), 2u);
  EXPECT_FALSE(c.Observe(a, "a.3", "t").create);
  EventDecision d = c.Observe(b, "b.2", "t");
  EXPECT_TRUE(d.create);
  EXPECT_EQ(d.name, "b.2");
}

}  // namespace
}  // namespace petname::kube
