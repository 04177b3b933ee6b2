// What ranks tell each other at rendezvous, so that only ranks of one job, training the same
// thing, in this attempt, form a group. Pure (no LibTorch, no sockets), unit-tested under
// sanitizers; the store round trips are in communicator.cc.
//
// Protocol (every rank, after connecting to rank 0's store and before the process group forms):
//  1. rank r makes a fresh random nonce (NewNonce) and publishes it under key r;
//  2. rank r reads every other rank's nonce; its own it keeps from step 1, never reading it
//     back from the store;
//  3. rank r publishes EncodeIdentity(settings, r, secret, nonces) under key r;
//  4. rank r reads every other rank's entry and checks it with CheckPeer against the nonces it
//     holds;
//  5. rank r publishes that it has checked; rank 0 waits for every rank's before it returns, so
//     that its store outlives everybody's reads and every rank reaches its own verdict.
// The entry is "mac=HEX\n" followed by FingerprintText(settings); the MAC is HMAC-SHA256 under
// the job's secret (PETNAME_RENDEZVOUS_SECRET, from the operator's per-job Secret or the local
// launcher) over every rank's nonce (in rank order), the rank and the settings. Each rank checks
// MACs that cover the nonce it made itself for this attempt, a challenge nobody else chose: so a
// process without the secret cannot publish an entry that verifies, nor replay one recorded from
// another rank, run, attempt or restart (the secret outlives gang restarts; the nonces do not),
// whatever it writes into the store. The published settings are authenticated, so a mismatch
// names the differing setting truthfully. With an empty secret (ranks started by hand without
// one) the settings are still compared but anyone can forge them; the lead rank warns
// (communicator.cc). The store itself admits only connections that proved the secret
// (store_protocol.h), so with a secret a stranger never reaches these keys at all; this check
// stays as a second line and for the settings.
#pragma once

#include <string>
#include <vector>

#include "common/fingerprint.h"
#include "common/status.h"

namespace petname::dist {

// A fresh nonce for one rank's attempt: 16 bytes of the system's random source, as hex.
// kInternal when that source fails.
Status NewNonce(std::string* nonce);

// The store value rank `rank` publishes. `nonces` holds every rank's nonce of this attempt,
// indexed by rank (this rank's own as made by NewNonce).
std::string EncodeIdentity(const Fingerprint& settings, int rank, const std::string& secret,
                           const std::vector<std::string>& nonces);

// Checks the value published under rank `peer` by this rank (`self`, with `mine`) against the
// nonces this rank holds (its own at index `self`). Errors (FailedPrecondition, one line): an
// entry that does not verify under `secret` over these nonces (the peer has another secret, is
// not of this job, or the entry was recorded in another attempt), or settings that differ
// (naming the first differing one with both values).
Status CheckPeer(const std::string& entry, int peer, int self, const Fingerprint& mine,
                 const std::string& secret, const std::vector<std::string>& nonces);

}  // namespace petname::dist
