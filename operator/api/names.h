// The names of PetNameTrainingJobs and PetNameTrainingSweeps, which name other objects: a job's
// name is its headless Service's name and the prefix of its pods' names and hostnames
// (<job>-rank-<i>); a sweep's is the prefix of its trial jobs' (<sweep>-<iii>). Both must
// therefore be DNS-1035 labels (lowercase letters, digits and '-', starting with a letter and
// ending with a letter or digit, as a Service name must be), short enough for what is derived.
// The CRDs refuse other names (CEL rules on metadata.name); this is the operator's own check for
// objects stored before those rules existed.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"

namespace petname::api {

// <job>-rank-<i> stays a DNS label (63 characters).
inline constexpr size_t kMaxJobName = 47;
// <sweep>-<iii> stays a job name (kMaxJobName).
inline constexpr size_t kMaxSweepName = 43;

// True when `name` is a DNS-1035 label of at most 63 characters.
bool IsDns1035Label(const std::string& name);

// True when `name` is a DNS subdomain (RFC 1123): dot-separated labels of lowercase letters,
// digits and '-', each starting and ending with a letter or digit, at most 253 characters.
bool IsDnsSubdomain(const std::string& name);

// True when `name` can be an extended resource the trainer asks for as
// resources.acceleratorResource: <DNS subdomain>/<name> (name: 1-63 of [-A-Za-z0-9_.], starting
// and ending alphanumeric), not in the kubernetes.io domain or its subdomains (cpu, memory,
// hugepages-* and other native resources have no domain, so they are refused too).
bool IsExtendedResourceName(const std::string& name);

// InvalidArgument "metadata.name \"<name>\" ..." saying which rule `name` breaks, with what it is
// needed for; Ok for a DNS-1035 label of at most `max_length` characters.
Status CheckObjectName(const std::string& name, size_t max_length);

}  // namespace petname::api
