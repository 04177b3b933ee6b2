// EventCorrelator: decides whether an Event is new or a repeat of one already posted, as
// client-go's EventCorrelator does, so that a failure repeated on every retry becomes one Event
// whose count and lastTimestamp grow instead of one Event per failure.
//
// Events are keyed by (involved object uid, type, reason). The first of a key is created; each
// repeat patches the created Event (its count, lastTimestamp and message: the latest). The
// correlator remembers at most `capacity` keys, least recently used first out (an evicted key's
// next event is created anew). Forget(key) is for an Event that is gone (the API server dropped
// it after its TTL: the patch met 404): the next is created anew. Pure: no server, no clock; not
// thread-safe (the recorder's one posting thread owns it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>

namespace petname::kube {

struct EventKey {
  std::string uid;
  std::string type;
  std::string reason;
  std::string String() const;  // one string, unique per key
};

struct EventDecision {
  bool create = true;      // false: patch `name`
  std::string name;        // the Event to patch (when !create)
  int64_t count = 1;       // the Event's count after this one
  std::string first_time;  // its firstTimestamp (the first event's time)
};

class EventCorrelator {
 public:
  explicit EventCorrelator(size_t capacity = 4096);

  // What to do with an event of `key` at `now` (RFC 3339) that would be created as `name`.
  EventDecision Observe(const EventKey& key, const std::string& name, const std::string& now);
  // The Event of `key` is gone: its next one is created.
  void Forget(const EventKey& key);
  size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string key;
    std::string name;
    int64_t count = 0;
    std::string first_time;
  };
  const size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace petname::kube
