#include "operator/kube/watch_end.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

WatchOutcome Ended(int status) {
  WatchOutcome o;
  o.http_status = status;
  return o;
}

TEST(WatchEndTest, ACleanEndWatchesAgain) {
  EXPECT_EQ(DecideAfterWatch(Ended(200)), AfterWatch::kWatchAgain);
}

TEST(WatchEndTest, AnExpiredResourceVersionRelistsAtOnce) {
  EXPECT_EQ(DecideAfterWatch(Ended(410)), AfterWatch::kRelist);
  WatchOutcome o = Ended(200);
  o.expired_event = true;
  EXPECT_EQ(DecideAfterWatch(o), AfterWatch::kRelist);
}

TEST(WatchEndTest, EveryOtherErrorRelistsAfterABackoff) {
  for (int status : {0, 400, 403, 404, 429, 500, 503, 504}) {
    EXPECT_EQ(DecideAfterWatch(Ended(status)), AfterWatch::kRelistAfterBackoff) << status;
  }
  WatchOutcome dropped = Ended(200);
  dropped.stream_failed = true;
  EXPECT_EQ(DecideAfterWatch(dropped), AfterWatch::kRelistAfterBackoff);
  WatchOutcome error_event = Ended(200);
  error_event.error_event = true;
  EXPECT_EQ(DecideAfterWatch(error_event), AfterWatch::kRelistAfterBackoff);
  WatchOutcome garbage = Ended(200);
  garbage.undecodable = true;
  EXPECT_EQ(DecideAfterWatch(garbage), AfterWatch::kRelistAfterBackoff);
  WatchOutcome dropped_after_410 = Ended(410);
  dropped_after_410.stream_failed = true;
  EXPECT_EQ(DecideAfterWatch(dropped_after_410), AfterWatch::kRelistAfterBackoff);
}

}  // namespace
}  // namespace petname::kube
