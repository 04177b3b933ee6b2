#include "trainer/distributed/communicator.h"

#include <torch/version.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cstdio>
#include <cstdlib>

#ifdef PETNAME_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef PETNAME_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "trainer/distributed/rendezvous.h"
#include "trainer/distributed/sealed_store.h"
#include "trainer/distributed/store_server.h"

namespace petname::dist {
namespace {

// LibTorch 2.x split c10d::ProcessGroup into a front end and per-backend c10d::Backend
// objects; the concrete Gloo/NCCL classes derive from whichever of the two is their base.
#if TORCH_VERSION_MAJOR >= 2
using GroupBase = c10d::Backend;
#else
using GroupBase = c10d::ProcessGroup;
#endif

using Millis = std::chrono::milliseconds;

#ifdef PETNAME_WITH_GLOO
bool IsLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

c10::intrusive_ptr<c10d::ProcessGroupGloo> MakeGloo(const c10::intrusive_ptr<c10d::Store>& store,
                                                    const RankConfig& rank, Millis timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
  } else if (IsLoopback(rank.master_addr)) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  options->threads = 1;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank.rank, rank.world_size, options);
}
#endif

#ifdef PETNAME_WITH_NCCL
c10::intrusive_ptr<c10d::ProcessGroupNCCL> MakeNccl(const c10::intrusive_ptr<c10d::Store>& store,
                                                    const RankConfig& rank, Millis timeout) {
  // NCCL's asynchronous error handling: on a collective timeout its watchdog aborts the
  // communicators but leaves the process alive (CleanUpOnly), so the waiting step fails with
  // the one line of CollectiveFailed and a retryable exit instead of the watchdog's abort.
  // A value the user set is kept.
  setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "2", /*overwrite=*/0);
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank.rank, rank.world_size, options);
}
#endif

std::string FirstLine(const std::exception& e) {
  std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

}  // namespace

struct Communicator::Group {
  std::unique_ptr<StoreServer> server;  // rank 0's; destroyed after everything that uses it
  std::chrono::milliseconds collective_timeout{0};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<GroupBase> group;
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
};

Status CheckBackendBuilt(Backend backend, const std::string& source) {
  const std::string what = !source.empty()             ? source
                           : backend == Backend::kGloo ? "--backend gloo"
                                                       : "--backend nccl";
#ifndef PETNAME_WITH_GLOO
  if (backend == Backend::kGloo) {
    return Status::InvalidArgument(
        what +
        ": this build has no Gloo (its LibTorch ships no gloo headers); several ranks need "
        "--device cuda with --backend nccl, or a LibTorch with Gloo");
  }
#endif
#ifndef PETNAME_WITH_NCCL
  if (backend == Backend::kNccl) {
    return Status::InvalidArgument(what + ": this build has no NCCL (CPU-only LibTorch)");
  }
#endif
  (void)backend;
  (void)what;
  return Status::Ok();
}

Status Communicator::Connect(const RankConfig& rank, const CommOptions& options,
                             std::unique_ptr<Communicator>* out) {
  // One Gloo rank needs no group (every collective is the identity); NCCL is created at every
  // world size so that a single GPU runs the same collectives as many.
  if (rank.world_size == 1 && options.backend == Backend::kGloo) {
    out->reset(new Communicator(0, 1, nullptr));
    return Status::Ok();
  }
  PETNAME_RETURN_IF_ERROR(CheckBackendBuilt(options.backend, options.backend_source));
  auto group = std::make_unique<Group>();
  group->collective_timeout = options.collective_timeout;
  if (rank.world_size == 1) {
    group->store = c10::make_intrusive<c10d::HashStore>();
  } else {
    c10::intrusive_ptr<SealedStore> store;
    Status st = ConnectStore(rank, options, &group->server, &store);
    if (st.ok()) st = CheckPeers(*store, rank, options);
    PETNAME_RETURN_IF_ERROR(WithRefusals(st, group->server.get()));
    group->store = store;
  }
  try {
#ifdef PETNAME_WITH_NCCL
    if (options.backend == Backend::kNccl) {
      group->group = MakeNccl(group->store, rank, options.collective_timeout);
    }
#endif
#ifdef PETNAME_WITH_GLOO
    if (options.backend == Backend::kGloo) {
      group->group = MakeGloo(group->store, rank, options.collective_timeout);
    }
#endif
  } catch (const std::exception& e) {
    return WithRefusals(
        Status::Unavailable("rendezvous: process group did not form: " + FirstLine(e)),
        group->server.get());
  }
  out->reset(new Communicator(rank.rank, rank.world_size, std::move(group)));
  return Status::Ok();
}

Communicator::Communicator(int rank, int world_size, std::unique_ptr<Group> group)
    : rank_(rank), world_size_(world_size), group_(std::move(group)) {}

Communicator::~Communicator() {
#if TORCH_VERSION_MAJOR >= 2
  // NCCL wants its communicators shut down before exit (it warns otherwise); a shutdown
  // would wait for a collective that failed, so a failed group is aborted instead.
  if (!group_) return;
  try {
    if (failed_) {
      group_->group->abort();
    } else {
      group_->group->shutdown();
    }
  } catch (const std::exception&) {  // a group whose peer is gone: nothing left to release
  }
#endif
}

Status Communicator::StartAllreduceSum(const torch::Tensor& tensor) {
  if (!group_) return Status::Ok();
  try {
    std::vector<at::Tensor> tensors{tensor};
    group_->pending.push_back(group_->group->allreduce(tensors));
  } catch (const std::exception& e) {
    return Status::Unavailable("all-reduce failed to start: " + FirstLine(e));
  }
  return Status::Ok();
}

void Communicator::MarkFailed() { failed_ = true; }

Status Communicator::CollectiveFailed(const char* what, const std::exception& e) {
  failed_ = true;
  const double seconds = std::chrono::duration<double>(group_->collective_timeout).count();
  char timeout[32];
  std::snprintf(timeout, sizeof(timeout), "%g", seconds);
  return Status::Unavailable("rank " + std::to_string(rank_) + ": collective failed (" + what +
                             "): a peer died, or did not answer within the collective timeout " +
                             "(--collective-timeout " + timeout + " s): " + FirstLine(e));
}

Status Communicator::WaitAll() {
  if (!group_) return Status::Ok();
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
  pending.swap(group_->pending);
  try {
    for (auto& work : pending) work->wait();
  } catch (const std::exception& e) {
    return CollectiveFailed("all-reduce", e);
  }
  return Status::Ok();
}

Status Communicator::AllreduceSum(const torch::Tensor& tensor) {
  PETNAME_RETURN_IF_ERROR(StartAllreduceSum(tensor));
  return WaitAll();
}

Status Communicator::BroadcastFromRank0(const std::vector<torch::Tensor>& tensors) {
  if (!group_ || tensors.empty()) return Status::Ok();
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat_parts;
  for (const auto& t : tensors) flat_parts.push_back(t.detach().reshape(-1));
  std::vector<at::Tensor> flat{torch::cat(flat_parts)};
  try {
    group_->group->broadcast(flat)->wait();
  } catch (const std::exception& e) {
    return CollectiveFailed("broadcast", e);
  }
  int64_t offset = 0;
  for (const auto& t : tensors) {
    t.detach().copy_(flat[0].narrow(0, offset, t.numel()).view_as(t));
    offset += t.numel();
  }
  return Status::Ok();
}

}  // namespace petname::dist
