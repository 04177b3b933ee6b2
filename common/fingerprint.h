// A run's fingerprint: the settings that must be equal for two processes (ranks of one job, or a
// run and the checkpoint it resumes) to be doing the same thing, as named text values. Pure.
//
// Names are [a-z0-9_]+ and values contain no '\n'; Text() writes "name=value\n" lines in name
// order, which is what Digest() hashes and MACs sign, so the same settings give the same bytes
// on every machine.
#pragma once

#include <map>
#include <set>
#include <string>

#include "common/status.h"

namespace petname {

using Fingerprint = std::map<std::string, std::string>;

// "name=value\n" per setting, in name order.
std::string FingerprintText(const Fingerprint& f);

// Parses FingerprintText's output; Corruption on a line without '=' or a name out of order.
Status ParseFingerprintText(const std::string& text, Fingerprint* out);

// sha256 hex of FingerprintText(f).
std::string FingerprintDigest(const Fingerprint& f);

// The first name (in name order, over both) whose value differs or that only one of them has,
// skipping names in `ignore`; empty when they agree.
std::string FirstDifference(const Fingerprint& a, const Fingerprint& b,
                            const std::set<std::string>& ignore = {});

// "name=value", or "no name" when `f` lacks it: how a message shows one side of a difference.
std::string DescribeSetting(const Fingerprint& f, const std::string& name);

}  // namespace petname
