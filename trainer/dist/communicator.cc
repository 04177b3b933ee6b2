#include "trainer/dist/communicator.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <torch/version.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "trainer/dist/backoff.h"

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

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

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
  Backoff backoff(Millis(100), Millis(5000), 2.0);
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

std::string FirstLine(const std::exception& e) {
  std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

}  // namespace

struct Communicator::Group {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<GroupBase> group;
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
};

bool ParseBackend(const std::string& name, Backend* out) {
  if (name == "gloo") {
    *out = Backend::kGloo;
    return true;
  }
  if (name == "nccl") {
    *out = Backend::kNccl;
    return true;
  }
  return false;
}

Status Communicator::Connect(const RankConfig& rank, const CommOptions& options,
                             std::unique_ptr<Communicator>* out) {
  if (rank.world_size == 1) {
    out->reset(new Communicator(0, 1, nullptr));
    return Status::Ok();
  }
#ifndef USE_C10D_NCCL
  if (options.backend == Backend::kNccl) {
    return Status::InvalidArgument("--backend nccl: this build has no NCCL (CPU-only LibTorch)");
  }
#endif
  auto group = std::make_unique<Group>();
  PETNAME_RETURN_IF_ERROR(ConnectStore(rank, options.rendezvous_timeout, &group->store));
  try {
#ifdef USE_C10D_NCCL
    if (options.backend == Backend::kNccl) {
      auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
      nccl_options->timeout = options.collective_timeout;
      group->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(group->store, rank.rank,
                                                                 rank.world_size, nccl_options);
    }
#endif
    if (options.backend == Backend::kGloo) {
      group->group = MakeGloo(group->store, rank, options.collective_timeout);
    }
  } catch (const std::exception& e) {
    return Status::Unavailable("rendezvous: process group did not form: " + FirstLine(e));
  }
  out->reset(new Communicator(rank.rank, rank.world_size, std::move(group)));
  return Status::Ok();
}

Communicator::Communicator(int rank, int world_size, std::unique_ptr<Group> group)
    : rank_(rank), world_size_(world_size), group_(std::move(group)) {}

Communicator::~Communicator() = default;

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

Status Communicator::WaitAll() {
  if (!group_) return Status::Ok();
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
  pending.swap(group_->pending);
  try {
    for (auto& work : pending) work->wait();
  } catch (const std::exception& e) {
    return Status::Unavailable("rank " + std::to_string(rank_) +
                               ": collective failed (peer gone or timed out): " + FirstLine(e));
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
    return Status::Unavailable("rank " + std::to_string(rank_) +
                               ": broadcast failed (peer gone or timed out): " + FirstLine(e));
  }
  int64_t offset = 0;
  for (const auto& t : tensors) {
    t.detach().copy_(flat[0].narrow(0, offset, t.numel()).view_as(t));
    offset += t.numel();
  }
  return Status::Ok();
}

}  // namespace petname::dist
