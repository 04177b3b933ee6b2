#include "trainer/distributed/communicator.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <torch/version.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#ifdef PETNAME_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef PETNAME_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "common/backoff.h"
#include "trainer/distributed/peer_check.h"

namespace petname::dist {
namespace {

// LibTorch 2.x split c10d::ProcessGroup into a front end and per-backend c10d::Backend
// objects; the concrete Gloo/NCCL classes derive from whichever of the two is their base.
#if TORCH_VERSION_MAJOR >= 2
using GroupBase = c10d::Backend;
#else
using GroupBase = c10d::ProcessGroup;
#endif

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// Empty when something accepts TCP connections at host:port, else why not. Checked before
// c10d connects, because c10d logs every failed attempt on its own.
std::string ProbeMaster(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &result);
  if (rc != 0) return gai_strerror(rc);
  std::string error = "no address";
  for (addrinfo* a = result; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int err = connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      socklen_t len = sizeof err;
      err = poll(&p, 1, 2000) == 1 ? (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len), err)
                                   : ETIMEDOUT;
    }
    close(fd);
    error = err == 0 ? "" : std::strerror(err);
    if (err == 0) break;
  }
  freeaddrinfo(result);
  return error;
}

std::string Seconds(Millis d) { return std::to_string(d.count() / 1000.0).substr(0, 5) + " s"; }

// Rank 0 hosts the store; the others connect to it, retrying until the deadline.
Status ConnectStore(const RankConfig& rank, Millis timeout,
                    c10::intrusive_ptr<c10d::TCPStore>* out) {
  const std::string where = rank.master_addr + ":" + std::to_string(rank.master_port);
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  Backoff backoff(Millis(100), Millis(5000));
  std::string last_error;
  for (;;) {
    Millis left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    if (rank.rank != 0) last_error = ProbeMaster(rank.master_addr, rank.master_port);
    if (last_error.empty()) {
      c10d::TCPStoreOptions options;
      options.port = static_cast<uint16_t>(rank.master_port);
      options.isServer = rank.rank == 0;
      options.numWorkers = rank.world_size;
      options.waitWorkers = false;
      options.timeout = std::max(Millis(1), std::min(left, Millis(10000)));
      try {
        *out = c10::make_intrusive<c10d::TCPStore>(rank.master_addr, options);
        (*out)->setTimeout(timeout);
        return Status::Ok();
      } catch (const std::exception& e) {
        last_error = e.what();
        last_error = last_error.substr(0, last_error.find('\n'));
        if (rank.rank == 0) {
          return Status::Unavailable("rendezvous: cannot host the store on " + where + ": " +
                                     last_error);
        }
      }
    }
    Millis delay = backoff.Next(std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    if (delay <= Millis(0)) break;
    std::this_thread::sleep_for(delay);
  }
  return Status::Unavailable("rendezvous: master " + where + " not reachable after waiting " +
                             Seconds(std::chrono::duration_cast<Millis>(Clock::now() - start)) +
                             " (" + last_error + ")");
}

// peer_check.h's protocol over the store. Store failures (a peer that never publishes, rank 0
// gone) are kUnavailable after the store's timeout (the rendezvous timeout).
Status CheckPeers(c10d::Store& store, const RankConfig& rank, const CommOptions& options) {
  const std::string prefix = "petname/peer/";
  auto key = [&](const char* what, int r) { return prefix + what + "/" + std::to_string(r); };
  auto text = [](const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); };
  auto bytes = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  if (rank.rank == 0 && options.secret.empty()) {
    std::fprintf(stderr,
                 "petname: warning: rendezvous is not authenticated (PETNAME_RENDEZVOUS_SECRET is "
                 "not set): any process that reaches port %d can join\n",
                 rank.master_port);
  }
  Status verdict;
  try {
    std::vector<std::string> nonces(static_cast<size_t>(rank.world_size));
    const size_t self = static_cast<size_t>(rank.rank);
    PETNAME_RETURN_IF_ERROR(NewNonce(&nonces[self]));
    store.set(key("nonce", rank.rank), bytes(nonces[self]));
    for (int peer = 0; peer < rank.world_size; ++peer) {
      if (peer != rank.rank)
        nonces[static_cast<size_t>(peer)] = text(store.get(key("nonce", peer)));
    }
    store.set(key("identity", rank.rank),
              bytes(EncodeIdentity(options.settings, rank.rank, options.secret, nonces)));
    for (int peer = 0; peer < rank.world_size && verdict.ok(); ++peer) {
      if (peer == rank.rank) continue;
      verdict = CheckPeer(text(store.get(key("identity", peer))), peer, rank.rank, options.settings,
                          options.secret, nonces);
    }
    store.set(key("checked", rank.rank), bytes(verdict.ok() ? "ok" : "refused"));
    if (rank.rank == 0) {
      std::vector<std::string> checked;
      for (int peer = 1; peer < rank.world_size; ++peer) checked.push_back(key("checked", peer));
      store.wait(checked);
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status::Unavailable("rendezvous: the ranks did not all check in: " +
                               what.substr(0, what.find('\n')));
  }
  return verdict;
}

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
    c10::intrusive_ptr<c10d::TCPStore> store;
    PETNAME_RETURN_IF_ERROR(ConnectStore(rank, options.rendezvous_timeout, &store));
    PETNAME_RETURN_IF_ERROR(CheckPeers(*store, rank, options));
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
    return Status::Unavailable("rendezvous: process group did not form: " + FirstLine(e));
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
