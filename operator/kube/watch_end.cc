#include "operator/kube/watch_end.h"

namespace petname::kube {

AfterWatch DecideAfterWatch(const WatchOutcome& o) {
  if (o.stream_failed || o.undecodable || o.error_event) return AfterWatch::kRelistAfterBackoff;
  if (o.http_status == 410 || o.expired_event) return AfterWatch::kRelist;
  if (o.http_status != 200) return AfterWatch::kRelistAfterBackoff;
  return AfterWatch::kWatchAgain;
}

}  // namespace petname::kube
