// How the ranks of a job meet before their process group forms (communicator.h): rank 0 hosts
// the rendezvous store, every rank connects to it through a SealedStore, retrying with backoff
// until the rendezvous timeout, and the ranks check each other over it (peer_check.h). The
// failures are one-line Statuses: kUnavailable, or kFailedPrecondition for a rank the store or
// its peers refuse.
#pragma once

#include <memory>

#include "common/status.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/sealed_store.h"
#include "trainer/distributed/store_server.h"

namespace petname::dist {

// Rank 0 hosts the store (*server); every rank connects to it, retrying until the deadline.
Status ConnectStore(const RankConfig& rank, const CommOptions& options,
                    std::unique_ptr<StoreServer>* server, c10::intrusive_ptr<SealedStore>* out);

// A failure of rank 0's rendezvous, with what its store refused (a stranger that did not prove
// the secret may be why the others never checked in).
Status WithRefusals(const Status& st, const StoreServer* server);

// peer_check.h's protocol over the store. Store failures (a peer that never publishes, rank 0
// gone) are kUnavailable after the store's timeout (the rendezvous timeout).
Status CheckPeers(c10d::Store& store, const RankConfig& rank, const CommOptions& options);

}  // namespace petname::dist
