#include "operator/kube/lease.h"

#include <cstdlib>

#include "common/time_util.h"
#include "operator/kube/object.h"

namespace petname::kube {

LeaseRecord LeaseFromJson(const nlohmann::json& lease) {
  LeaseRecord r;
  r.holder = StringAt(lease, "/spec/holderIdentity");
  r.lease_duration_seconds = static_cast<int>(IntAt(lease, "/spec/leaseDurationSeconds", 0));
  r.acquire_time = StringAt(lease, "/spec/acquireTime");
  r.renew_time = StringAt(lease, "/spec/renewTime");
  r.transitions = static_cast<int>(IntAt(lease, "/spec/leaseTransitions", 0));
  r.resource_version = ResourceVersion(lease);
  return r;
}

nlohmann::json LeaseToJson(const std::string& ns, const std::string& name,
                           const LeaseRecord& record) {
  nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                          {"kind", "Lease"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"spec",
                           {{"holderIdentity", record.holder},
                            {"leaseDurationSeconds", record.lease_duration_seconds},
                            {"leaseTransitions", record.transitions}}}};
  if (!record.acquire_time.empty()) lease["spec"]["acquireTime"] = record.acquire_time;
  if (!record.renew_time.empty()) lease["spec"]["renewTime"] = record.renew_time;
  if (!record.resource_version.empty()) {
    lease["metadata"]["resourceVersion"] = record.resource_version;
  }
  return lease;
}

bool MayAcquire(const LeaseRecord& observed, const std::string& identity, bool expired) {
  return observed.holder.empty() || observed.holder == identity || expired;
}

LeaseRecord NextRecord(const LeaseRecord& observed, const std::string& identity,
                       int lease_duration_seconds, const std::string& now) {
  LeaseRecord next = observed;
  next.lease_duration_seconds = lease_duration_seconds;
  next.renew_time = now;
  if (observed.holder != identity) {
    next.holder = identity;
    next.acquire_time = now;
    // A new lease starts at 0; taking an existing one is a transition (as in client-go).
    next.transitions = observed.resource_version.empty() ? 0 : observed.transitions + 1;
  }
  return next;
}

LeaseRecord ReleasedRecord(const LeaseRecord& held, const std::string& now) {
  LeaseRecord released = held;
  released.holder.clear();
  released.lease_duration_seconds = 1;
  released.acquire_time = now;
  released.renew_time = now;
  return released;
}

std::string MicroTimeNow() { return Rfc3339(std::chrono::system_clock::now(), 6); }

Status ParseDuration(const std::string& text, std::chrono::milliseconds* out) {
  size_t digits = text.find_first_not_of("0123456789");
  Status bad = Status::InvalidArgument("duration '" + text + "' is not like 15s, 500ms, 2m or 1h");
  if (digits == 0 || digits == std::string::npos || digits > 9) return bad;
  long long n = std::strtoll(text.substr(0, digits).c_str(), nullptr, 10);
  std::string unit = text.substr(digits);
  if (unit == "ms") {
    *out = std::chrono::milliseconds(n);
  } else if (unit == "s") {
    *out = std::chrono::seconds(n);
  } else if (unit == "m") {
    *out = std::chrono::minutes(n);
  } else if (unit == "h") {
    *out = std::chrono::hours(n);
  } else {
    return bad;
  }
  if (n == 0) return Status::InvalidArgument("duration '" + text + "' must be positive");
  return Status::Ok();
}

}  // namespace petname::kube
