// Informer: a local cache of one resource kept current by list + watch, like client-go's
// reflector + store.
//
// Run() lists with pagination (limit/continue, a few objects per page, one page in flight in the
// whole process at a time; a 410 at any page, as an expired continue token
// gives, starts the list over from the first page; after 3 attempts in all it counts as a failed
// list: the cache is only ever replaced by a complete list), remembers the list's resourceVersion,
// then watches from it with allowWatchBookmarks=true and a randomized timeoutSeconds (5-10 min),
// updating the resourceVersion (opaque) from every event including BOOKMARKs. When the watch
// ends cleanly it re-watches from there; on HTTP 410 or an ERROR event with code 410 it relists;
// on any other watch error (a broken stream, another HTTP status, another ERROR event, a line
// that is not an event) it relists after a jittered backoff (watch_end.h), as it does after a
// failed list; the backoff grows until a watch works again. After each change to the cache
// the handler is called with the object (for a relist: every listed object, and every cached
// object that vanished). Cached objects lack metadata.managedFields and whatever the informer's
// Transform removes (as controller-runtime's cache TransformFunc); an object the Transform
// refuses is not cached, and a cached one that it now refuses counts as deleted. A page is
// parsed item by item (RestClient::List) and neither a list nor the cache is ever copied whole:
// memory is the cache plus one page. Cache reads are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/watch_end.h"

namespace petname::kube {

class Informer {
 public:
  using Handler = std::function<void(const nlohmann::json& obj)>;
  // Applied to every listed or watched object before it is cached and handed to the handler;
  // false: the object is not to be cached.
  using Transform = std::function<bool(nlohmann::json* obj)>;

  // `path` is the collection, e.g. /api/v1/namespaces/ns/pods or /api/v1/pods. `transform` may
  // be null.
  Informer(RestClient* client, std::string path, std::string label_selector, Handler handler,
           Transform transform = nullptr);

  // Blocks, keeping the cache current, until Stop() (or the client's Shutdown()).
  void Run();
  void Stop();

  // True once the first list has been stored.
  bool HasSynced() const { return synced_.load(); }
  bool Get(const std::string& key, nlohmann::json* out) const;
  // Copies of the cached objects for which `keep` returns true.
  std::vector<nlohmann::json> List(const std::function<bool(const nlohmann::json&)>& keep) const;
  // Calls `visit` with every cached object, without copying, under the cache's lock: `visit`
  // must not call this informer.
  void Visit(const std::function<void(const nlohmann::json&)>& visit) const;
  size_t Size() const;
  // Times the informer (re)listed; a relist after 410 increments it.
  int lists() const { return lists_.load(); }

 private:
  // One complete paged list into *fresh; a 410 at any page sets *expired and fails.
  Status ListPages(std::map<std::string, nlohmann::json>* fresh, std::string* resource_version,
                   bool* expired);
  // ListPages, started over from the first page after a 410 (a bounded number of times); the
  // cache is replaced only by a complete list.
  Status ListAll(std::string* resource_version);
  // One watch from *resource_version (updated from its events); *received is set when an event
  // arrived.
  WatchOutcome Watch(std::string* resource_version, bool* received);
  void Apply(const std::string& type, nlohmann::json obj);
  // Strips managedFields and applies the Transform; false: not to be cached.
  bool Shape(nlohmann::json* obj) const;
  void WaitBackoff();

  RestClient* const client_;
  const std::string path_;
  const std::string selector_;
  const Handler handler_;
  const Transform transform_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::atomic<int> lists_{0};
  mutable std::mutex mu_;
  std::map<std::string, nlohmann::json> cache_;
  std::mt19937_64 rng_;
  int failures_ = 0;
};

}  // namespace petname::kube
