#include "operator/kube/event_correlator.h"

#include <algorithm>

namespace petname::kube {

std::string EventKey::String() const {
  // uid, type and reason hold no NUL.
  return uid + '\0' + type + '\0' + reason;
}

EventCorrelator::EventCorrelator(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

EventDecision EventCorrelator::Observe(const EventKey& key, const std::string& name,
                                       const std::string& now) {
  const std::string k = key.String();
  EventDecision d;
  auto it = index_.find(k);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    Entry& e = lru_.front();
    ++e.count;
    d.create = false;
    d.name = e.name;
    d.count = e.count;
    d.first_time = e.first_time;
    return d;
  }
  if (index_.size() >= capacity_) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(Entry{k, name, 1, now});
  index_[k] = lru_.begin();
  d.name = name;
  d.first_time = now;
  return d;
}

void EventCorrelator::Forget(const EventKey& key) {
  auto it = index_.find(key.String());
  if (it == index_.end()) return;
  lru_.erase(it->second);
  index_.erase(it);
}

}  // namespace petname::kube
