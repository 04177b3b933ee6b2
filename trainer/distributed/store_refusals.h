// The record of the connections the rendezvous store's server refused (store_server.h): each is
// counted, the first kLoggedRefusals are passed to a log as one line naming the peer's address
// and why, and the count and the last one can be read from any thread.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

namespace petname::dist {

// Refusals logged through StoreServerOptions::log; later ones are only counted.
inline constexpr size_t kLoggedRefusals = 10;

struct StoreRefusals {
  size_t count = 0;
  std::string last_peer;  // "ADDRESS:PORT" of the last connection refused
  std::string last_why;
};

namespace store {

class RefusalLog {
 public:
  // `log` may be empty: refusals are then only counted.
  explicit RefusalLog(std::function<void(const std::string& line)> log) : log_(std::move(log)) {}

  // Counts the refusal of the connection from `peer` (ADDRESS:PORT) for `why`. The first
  // kLoggedRefusals are logged one line each, the next as one line saying that further ones are
  // only counted.
  void Record(const std::string& peer, const std::string& why);

  StoreRefusals Get() const;

 private:
  const std::function<void(const std::string& line)> log_;
  mutable std::mutex mutex_;
  StoreRefusals refusals_;
};

}  // namespace store
}  // namespace petname::dist
