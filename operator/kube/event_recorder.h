// EventRecorder: posts core/v1 Events about an object (kubectl describe shows them) without
// ever blocking the caller. Record() only queues; one background thread creates the events.
// A full queue (1000 events) drops the new event; a failed create is logged at warn and
// dropped. Events are named <object>.<random hex> in the object's namespace, with
// source.component / reportingComponent set to the recorder's component. Repeats are aggregated
// (EventCorrelator): an event with the uid, type and reason of one already created patches that
// Event's count, lastTimestamp and message instead of creating another (a patch that meets 404,
// the Event having expired, creates it anew). Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "operator/kube/event_correlator.h"
#include "operator/kube/rest_client.h"

namespace petname::kube {

class EventRecorder {
 public:
  EventRecorder(RestClient* client, std::string component);
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `object` is the involved object (apiVersion, kind, metadata); `type` is Normal or Warning.
  void Record(const nlohmann::json& object, const std::string& type, const std::string& reason,
              const std::string& message);

  // Posts what is queued (unless the client is shut down) and joins the thread.
  void Stop();

  int64_t recorded() const;  // events created or counted so far

 private:
  void Run();
  void Post(nlohmann::json event);
  // POSTs `event`; true when the API server stored it.
  bool Create(const nlohmann::json& event);

  RestClient* const client_;
  const std::string component_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> queue_;
  bool stopping_ = false;
  int64_t recorded_ = 0;
  std::mt19937_64 rng_;
  EventCorrelator correlator_;  // only the posting thread uses it
  std::thread thread_;
};

}  // namespace petname::kube
