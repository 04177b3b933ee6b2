#include "trainer/distributed/rendezvous.h"

#include <cstdio>
#include <thread>

#include "common/backoff.h"
#include "trainer/distributed/peer_check.h"

namespace petname::dist {
namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

std::string Seconds(Millis d) { return std::to_string(d.count() / 1000.0).substr(0, 5) + " s"; }

}  // namespace

Status ConnectStore(const RankConfig& rank, const CommOptions& options,
                    std::unique_ptr<StoreServer>* server, c10::intrusive_ptr<SealedStore>* out) {
  const std::string where = rank.master_addr + ":" + std::to_string(rank.master_port);
  const auto start = Clock::now();
  const auto deadline = start + options.rendezvous_timeout;
  if (rank.rank == 0) {
    StoreServerOptions server_options;
    server_options.secret = options.secret;
    server_options.port = rank.master_port;
    const auto world = static_cast<size_t>(rank.world_size);
    server_options.max_bytes = (16 + world) * store::kMaxValueBytes;
    server_options.max_connections = 64 + 8 * world;
    // The local ranks of one pod or machine share an address and may all shake hands at once.
    server_options.max_handshaking = 64 + 2 * world;
    server_options.max_per_peer = 8 + world;
    server_options.log = [](const std::string& line) {
      std::fprintf(stderr, "petname: warning: %s\n", line.c_str());
    };
    Status st = StoreServer::Start(server_options, server);
    if (!st.ok()) {
      return Status::Unavailable("rendezvous: cannot host the store on " + where + ": " +
                                 st.message());
    }
  }
  Backoff backoff(Millis(100), Millis(5000));
  Status last;
  for (;;) {
    const auto attempt = std::min(deadline, Clock::now() + Millis(10000));
    last = SealedStore::Connect(rank.master_addr, rank.master_port, options.secret,
                                options.rendezvous_timeout, attempt, out);
    if (last.ok()) return last;
    if (last.code() == Status::Code::kFailedPrecondition) {
      return Status::FailedPrecondition("rendezvous: rank " + std::to_string(rank.rank) + ": " +
                                        last.message());
    }
    Millis delay = backoff.Next(std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    if (delay <= Millis(0)) break;
    std::this_thread::sleep_for(delay);
  }
  return Status::Unavailable("rendezvous: master " + where + " not reachable after waiting " +
                             Seconds(std::chrono::duration_cast<Millis>(Clock::now() - start)) +
                             " (" + last.message() + ")");
}

Status WithRefusals(const Status& st, const StoreServer* server) {
  const StoreRefusals refused = server != nullptr ? server->refusals() : StoreRefusals{};
  if (st.ok() || refused.count == 0) return st;
  const std::string message =
      st.message() + "; the store refused " + std::to_string(refused.count) +
      (refused.count == 1 ? " connection" : " connections") + ", the last from " +
      refused.last_peer + " (" + refused.last_why + ")";
  return st.code() == Status::Code::kFailedPrecondition ? Status::FailedPrecondition(message)
                                                        : Status::Unavailable(message);
}

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

}  // namespace petname::dist
