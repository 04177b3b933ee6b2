#include "trainer/distributed/store_refusals.h"

namespace petname::dist::store {

void RefusalLog::Record(const std::string& peer, const std::string& why) {
  // Logged under the lock, so that a refusal is counted (Get) once its line is out.
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t count = ++refusals_.count;
  refusals_.last_peer = peer;
  refusals_.last_why = why;
  if (!log_ || count > kLoggedRefusals + 1) return;
  log_(count <= kLoggedRefusals
           ? "rendezvous store: refused the connection from " + peer + ": " + why
           : "rendezvous store: further refusals are counted, not logged");
}

StoreRefusals RefusalLog::Get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refusals_;
}

}  // namespace petname::dist::store
