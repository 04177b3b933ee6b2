// The rendezvous store's server: rank 0 hosts it on MASTER_PORT (all interfaces) for as long as
// the object lives; every rank (rank 0 too) reaches it through store_client.h. It speaks
// store_protocol.h and keeps a store_table.h. No LibTorch, so it is tested under sanitizers.
//
// Anyone who reaches the port may connect, so every connection is taken to be hostile until it
// proves the job's secret, and none can hold the server up: one thread does all the I/O, all
// connections at once (poll), and never waits on any one of them.
// - A connection must send a whole handshake within `handshake_timeout` of being accepted; the
//   first byte that does not fit the protocol closes it at once. Before it proves the secret it
//   can neither read nor write a key.
// - At most `max_handshaking` connections are in their handshake at once, `max_per_peer` from one
//   address: a further one from that address is closed at once, and past the total the oldest
//   in its handshake is closed to make room (a rank answers the greeting at once).
// - After the handshake, a message must arrive whole within `message_timeout` once its first byte
//   has, and replies must be taken within `message_timeout`; a connection that has proved the
//   secret may stay idle for as long as it likes. At most `max_connections` such connections are
//   held; its message lengths and keys are bounded (store_protocol.h), the table's bytes too.
// Each connection closed for any of these (not one that closes itself) is a refusal: it is
// counted, the first kLoggedRefusals are passed to `log` as one line naming the peer's address
// and why (before refusals() counts it), and refusals() gives the count and the last one.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "trainer/distributed/store_refusals.h"

namespace petname::dist {

struct StoreServerOptions {
  std::string secret;  // the job's rendezvous secret; may be empty (anyone can prove it then)
  int port = 0;        // 0: a free port
  size_t max_bytes = size_t{64} << 20;  // keys and values together
  size_t max_connections = 1024;        // that have proved the secret
  size_t max_handshaking = 64;
  size_t max_per_peer = 8;  // in their handshake, from one address
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds message_timeout{30000};
  std::function<void(const std::string& line)> log;  // may be empty
};

class StoreServer {
 public:
  // Binds the port and starts serving. kUnavailable naming the port when it cannot be bound.
  static Status Start(const StoreServerOptions& options, std::unique_ptr<StoreServer>* out);
  ~StoreServer();

  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  int port() const { return port_; }
  StoreRefusals refusals() const;

 private:
  struct Loop;
  StoreServer(std::unique_ptr<Loop> loop, int port);

  std::unique_ptr<Loop> loop_;
  int port_;
  std::thread thread_;
};

}  // namespace petname::dist
