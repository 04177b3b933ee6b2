// The rendezvous store's keys and values, and what each request does to them, as c10d's
// TCPStore does it (store_protocol.h's Op says what each does). Pure, unit-tested under
// sanitizers; the server (store_server.h) holds one and keeps the connections that wait.
//
// Bounded: the keys and values together take at most `max_bytes` (a kSet, kAdd or kCompareSet
// that would pass it is answered kError and changes nothing).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "trainer/distributed/store_protocol.h"

namespace petname::dist::store {

class Table {
 public:
  explicit Table(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The reply to `request`. kWait is answered kOk when every key exists, else kMissing (the
  // server keeps it and asks again after the next change: Ready).
  Reply Apply(const Request& request);

  // Whether every key exists.
  bool Ready(const std::vector<std::string>& keys) const;

  size_t bytes() const { return bytes_; }

 private:
  // Sets `key` to `value` unless that would pass max_bytes_.
  bool Put(const std::string& key, const std::string& value, Reply* reply);

  size_t max_bytes_;
  size_t bytes_ = 0;
  std::map<std::string, std::string> values_;
};

}  // namespace petname::dist::store
