// What an informer does after one of its watches ended (informer.h). Pure.
//
//  - the server ended the watch cleanly (HTTP 200, the stream closed, e.g. at timeoutSeconds,
//    with no ERROR event and nothing undecodable): watch again from the last resourceVersion;
//  - the resourceVersion expired (HTTP 410, or an ERROR event with code 410): relist at once;
//  - any other error (the stream broke off, another HTTP status, an ERROR event with another
//    code, a line that is not a watch event): relist after a backoff, since events may have
//    been lost and the cache can no longer be trusted to be current.
#pragma once

namespace petname::kube {

struct WatchOutcome {
  bool stream_failed = false;  // the connection broke or could not be made
  int http_status = 0;         // of the watch request; 0 when none was read
  bool expired_event = false;  // an ERROR event with code 410
  bool error_event = false;    // an ERROR event with another code
  bool undecodable = false;    // a line that is not a watch event
};

enum class AfterWatch { kWatchAgain, kRelist, kRelistAfterBackoff };

AfterWatch DecideAfterWatch(const WatchOutcome& outcome);

}  // namespace petname::kube
