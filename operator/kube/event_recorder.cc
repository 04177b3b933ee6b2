#include "operator/kube/event_recorder.h"

#include <cstdio>

#include <spdlog/spdlog.h>

#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::kube {
namespace {

constexpr size_t kMaxQueued = 1000;
constexpr size_t kMaxMessage = 1024;

}  // namespace

EventRecorder::EventRecorder(RestClient* client, std::string component)
    : client_(client), component_(std::move(component)), rng_(std::random_device{}()) {
  thread_ = std::thread([this] { Run(); });
}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Record(const Json& object, const std::string& type, const std::string& reason,
                           const std::string& message) {
  const std::string now = FormatTime(NowUnix());
  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"namespace", Namespace(object)}}},
                {"involvedObject",
                 {{"apiVersion", object.value("apiVersion", "")},
                  {"kind", object.value("kind", "")},
                  {"name", Name(object)},
                  {"namespace", Namespace(object)},
                  {"uid", Uid(object)},
                  {"resourceVersion", ResourceVersion(object)}}},
                {"type", type},
                {"reason", reason},
                {"message", message.substr(0, kMaxMessage)},
                {"source", {{"component", component_}}},
                {"reportingComponent", component_},
                {"reportingInstance", component_},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"count", 1}};
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  if (queue_.size() >= kMaxQueued) {
    spdlog::warn("event queue full; dropping {} event for {}", reason, Key(object));
    return;
  }
  queue_.push_back(std::move(event));
  cv_.notify_one();
}

void EventRecorder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Json event = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Post(std::move(event));
    lock.lock();
  }
}

void EventRecorder::Post(Json event) {
  if (client_->shut_down()) return;
  const std::string ns = StringAt(event, "/metadata/namespace");
  const EventKey key{StringAt(event, "/involvedObject/uid"), event.value("type", ""),
                     event.value("reason", "")};
  const std::string now = event.value("lastTimestamp", "");
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(rng_()));
  const std::string name = StringAt(event, "/involvedObject/name") + "." + suffix;
  EventDecision d = correlator_.Observe(key, name, now);
  if (!d.create) {
    const Json patch = {{"count", d.count}, {"lastTimestamp", now}, {"message", event["message"]}};
    Response resp;
    Status s = client_->Do("PATCH", "/api/v1/namespaces/" + ns + "/events/" + d.name, &patch, &resp,
                           "application/merge-patch+json");
    if (s.ok() && resp.code == 200) {
      std::lock_guard<std::mutex> lock(mu_);
      ++recorded_;
      return;
    }
    if (!s.ok() || resp.code != 404) {
      spdlog::warn("event {} {} on {}/{}: not counted ({})", key.type, key.reason, ns,
                   StringAt(event, "/involvedObject/name"),
                   s.ok() ? "HTTP " + std::to_string(resp.code) : s.message());
      return;
    }
    correlator_.Forget(key);  // the Event expired: start a new one
    d = correlator_.Observe(key, name, now);
  }
  event["metadata"]["name"] = d.name;
  if (!Create(event)) correlator_.Forget(key);
}

bool EventRecorder::Create(const Json& event) {
  const std::string ns = StringAt(event, "/metadata/namespace");
  Response resp;
  Status s = client_->Do("POST", "/api/v1/namespaces/" + ns + "/events", &event, &resp);
  if (s.ok() && (resp.code == 201 || resp.code == 200)) {
    std::lock_guard<std::mutex> lock(mu_);
    ++recorded_;
    return true;
  }
  spdlog::warn("event {} {} on {}/{}: not recorded ({})", event.value("type", ""),
               event.value("reason", ""), ns, StringAt(event, "/involvedObject/name"),
               s.ok() ? "HTTP " + std::to_string(resp.code) : s.message());
  return false;
}

void EventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t EventRecorder::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

}  // namespace petname::kube
