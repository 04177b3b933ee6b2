// The coordination.k8s.io/v1 Lease record that leader election reads and writes, and the pure
// decisions of client-go's tryAcquireOrRenew on it:
//  - a lease held by another identity may be taken only once it has expired, judged by the
//    local clock: leaseDurationSeconds after this process last saw the record change (clocks of
//    different machines are never compared);
//  - taking it from another holder sets acquireTime and increments leaseTransitions; renewing
//    our own only moves renewTime;
//  - the write carries the observed resourceVersion, so of two candidates only one succeeds
//    (the other gets 409).
// Releasing (clean shutdown) empties holderIdentity so a standby acquires at once.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::kube {

struct LeaseRecord {
  std::string holder;  // spec.holderIdentity; "" = free
  int lease_duration_seconds = 0;
  std::string acquire_time;  // RFC 3339 with microseconds, as MicroTime
  std::string renew_time;
  int transitions = 0;
  std::string resource_version;  // metadata.resourceVersion ("" for a new lease)
};

LeaseRecord LeaseFromJson(const nlohmann::json& lease);

// The Lease object `ns`/`name` holding `record` (with metadata.resourceVersion when known).
nlohmann::json LeaseToJson(const std::string& ns, const std::string& name,
                           const LeaseRecord& record);

// True when `identity` may write `observed`: it holds it already, the lease is free, or
// `expired` (the caller's local judgement, see above).
bool MayAcquire(const LeaseRecord& observed, const std::string& identity, bool expired);

// The record `identity` writes over `observed` at time `now` (MicroTime text).
LeaseRecord NextRecord(const LeaseRecord& observed, const std::string& identity,
                       int lease_duration_seconds, const std::string& now);

// The record written on a clean shutdown: no holder, a 1 s lease.
LeaseRecord ReleasedRecord(const LeaseRecord& held, const std::string& now);

// The current time as a Kubernetes MicroTime: 2026-11-22T05:50:00.123456Z.
std::string MicroTimeNow();

// Parses a Go-style duration of one unit: "15s", "500ms", "2m", "1h". InvalidArgument otherwise
// (also for zero or negative values).
Status ParseDuration(const std::string& text, std::chrono::milliseconds* out);

}  // namespace petname::kube
