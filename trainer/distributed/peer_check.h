// What ranks tell each other at rendezvous, so that only ranks of one job, training the same
// thing, form a group. Pure (no LibTorch, no sockets), unit-tested under sanitizers; the store
// round trips are in communicator.cc.
//
// Protocol (every rank, after connecting to rank 0's store and before the process group forms):
//  1. rank 0 publishes a fresh random nonce; the others read it;
//  2. rank r publishes EncodeIdentity(settings, r, secret, nonce) under key r;
//  3. rank r reads every other rank's entry and checks it with CheckPeer;
//  4. rank r publishes that it has checked; rank 0 waits for every rank's before it returns, so
//     that its store outlives everybody's reads and every rank reaches its own verdict.
// The entry is "mac=HEX\n" followed by FingerprintText(settings); the MAC is HMAC-SHA256 under
// the job's secret (PETNAME_RENDEZVOUS_SECRET, from the operator's per-job Secret or the local
// launcher) over the nonce, the rank and the settings. So a process without the secret cannot
// publish an entry that verifies, nor replay one from another rank, run or restart; and the
// published settings are authenticated, so a mismatch names the differing setting truthfully.
// With an empty secret (ranks started by hand without one) the settings are still compared but
// anyone can forge them; the lead rank warns (communicator.cc).
#pragma once

#include <string>

#include "common/fingerprint.h"
#include "common/status.h"

namespace petname::dist {

// The store value rank `rank` publishes.
std::string EncodeIdentity(const Fingerprint& settings, int rank, const std::string& secret,
                           const std::string& nonce);

// Checks the value published under rank `peer` by this rank (`self`, with `mine`). Errors
// (FailedPrecondition, one line): an entry that does not verify under `secret` (the peer has
// another secret, or is not of this job), or settings that differ (naming the first differing
// one with both values).
Status CheckPeer(const std::string& entry, int peer, int self, const Fingerprint& mine,
                 const std::string& secret, const std::string& nonce);

}  // namespace petname::dist
