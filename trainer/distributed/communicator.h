// The process group of a data-parallel job: rendezvous through the sealed store hosted by rank 0
// (store_server.h; every rank reaches it through sealed_store.h), then Gloo (builds whose
// LibTorch ships gloo headers) or NCCL (CUDA builds) collectives. This header and
// communicator.cc (with rendezvous.h and sealed_store.h, which they build on) are the only places
// that know c10d; everything else sees tensors and Status.
//
// Contract:
//  - Connect() blocks until all world_size ranks have joined. A worker whose master does
//    not resolve or listen yet retries with backoff until rendezvous_timeout, then fails
//    with kUnavailable naming the address and the time waited. One Gloo rank needs no
//    store, no port and no peers; every collective is then the identity. NCCL forms a
//    group at every world size (one rank: an in-memory store), so one GPU runs the same
//    collectives as many.
//  - Every rank proves `secret` to the store, and the store to it, before it reads or writes a
//    key; the peer check, Gloo's and NCCL's bootstrap all go through that store. A rank the store
//    refuses (another secret) fails at once with kFailedPrecondition, one line. A connection
//    that does not prove the secret never reaches a key: rank 0 warns naming its address, and if
//    the rendezvous then fails, its error names the last address refused.
//  - Before the process group forms, the ranks check each other (peer_check.h): a rank whose
//    settings differ makes every rank fail with kFailedPrecondition (one line naming the
//    setting).
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/fingerprint.h"
#include "common/status.h"
#include "trainer/distributed/rank_env.h"

namespace petname::dist {

struct CommOptions {
  Backend backend = Backend::kGloo;
  std::string backend_source;  // how it was chosen, for messages (ChooseBackend's source)
  std::chrono::milliseconds rendezvous_timeout = std::chrono::seconds(300);
  std::chrono::milliseconds collective_timeout = std::chrono::seconds(300);
  std::string secret;    // the job's rendezvous secret (PETNAME_RENDEZVOUS_SECRET); may be empty
  Fingerprint settings;  // what every rank must share (train/run_fingerprint.h)
};

// kInvalidArgument when `backend` was not compiled into this build, naming `source` (how it was
// chosen: ChooseBackend's; empty means "--backend NAME").
Status CheckBackendBuilt(Backend backend, const std::string& source = "");

class Communicator {
 public:
  static Status Connect(const RankConfig& rank, const CommOptions& options,
                        std::unique_ptr<Communicator>* out);
  ~Communicator();

  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }

  // Starts an in-place sum all-reduce of `tensor`; completes at the next WaitAll().
  Status StartAllreduceSum(const torch::Tensor& tensor);

  // Waits for every started collective, in start order.
  Status WaitAll();

  // In-place sum all-reduce, synchronous.
  Status AllreduceSum(const torch::Tensor& tensor);

  // Records that a collective of this group failed outside these calls (a step that waited
  // past the collective timeout): the destructor then aborts the group instead of waiting for
  // its outstanding collectives.
  void MarkFailed();

  // Overwrites every tensor with rank 0's values (one flattened broadcast); the tensors
  // must share one dtype.
  Status BroadcastFromRank0(const std::vector<torch::Tensor>& tensors);

 private:
  struct Group;
  Communicator(int rank, int world_size, std::unique_ptr<Group> group);
  // The kUnavailable of a collective `what` that threw `e`, naming the collective timeout.
  Status CollectiveFailed(const char* what, const std::exception& e);

  int rank_;
  int world_size_;
  std::unique_ptr<Group> group_;  // null for world size 1
  bool failed_ = false;
};

}  // namespace petname::dist
