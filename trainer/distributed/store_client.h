// One connection of a rank to the rendezvous store (store_server.h): the handshake of
// store_protocol.h, then blocking calls, each with a deadline. No LibTorch; sealed_store.h puts
// c10d's Store interface on top. Not thread-safe: one caller at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"
#include "trainer/distributed/store_protocol.h"

namespace petname::dist {

class StoreClient {
 public:
  using Clock = std::chrono::steady_clock;

  // Resolves `host`, connects to `port` and runs the handshake, all before `deadline`. Errors:
  // kUnavailable (worth retrying) when the name does not resolve, nothing listens, the
  // connection breaks or the deadline passes; kFailedPrecondition when the store refused this
  // rank's proof of `secret`, or the peer proved nothing (it is not the job's store).
  static Status Connect(const std::string& host, int port, const std::string& secret,
                        Clock::time_point deadline, std::unique_ptr<StoreClient>* out);
  ~StoreClient();

  StoreClient(const StoreClient&) = delete;
  StoreClient& operator=(const StoreClient&) = delete;

  // Sends `request` and waits for its reply until `deadline`. kUnavailable when the connection
  // broke, a reply did not verify, or the deadline passed: the connection is then closed and
  // every later call fails the same way.
  Status Call(const store::Request& request, Clock::time_point deadline, store::Reply* reply);

 private:
  StoreClient(int fd, std::string where, store::ClientSession session);
  // Reads until `in_` holds `n` bytes.
  Status Receive(size_t n, Clock::time_point deadline);
  Status Send(const std::string& data, Clock::time_point deadline);
  Status Broken(const std::string& why);

  int fd_;
  std::string where_;  // host:port, for messages
  store::ClientSession session_;
  std::string in_;
  std::string broken_;  // why the connection is unusable; empty while it is not
};

}  // namespace petname::dist
