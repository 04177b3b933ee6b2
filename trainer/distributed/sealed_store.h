// SealedStore: c10d's Store interface over a connection to the rendezvous store
// (store_client.h, store_server.h), for the peer check and for the Gloo and NCCL process groups'
// bootstrap. Every request and reply travels sealed with a key that only holders of the job's
// secret can have (store_protocol.h), so nobody without it can read or write a key.
//
// The semantics are TCPStore's: get() and wait() block until the keys exist or the store's
// timeout (setTimeout; wait's own when given) passes, add() keeps a decimal counter, compareSet
// sets only over the expected value (or an absent key when that is empty). Failures (a timeout,
// a broken connection, a key or value over its limit in store_protocol.h) throw: c10d's
// DistStoreError on LibTorch 2.x, c10::Error on 1.13, one line first. Thread-safe: calls are
// serialized on the one connection; clone() (LibTorch 2.x) opens another.
#pragma once

#include <torch/version.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/distributed/store_client.h"

namespace petname::dist {

class SealedStore : public c10d::Store {
 public:
  // Connects to the store at host:port (StoreClient::Connect's errors) before `deadline`; calls
  // then wait up to `timeout`.
  static Status Connect(const std::string& host, int port, const std::string& secret,
                        std::chrono::milliseconds timeout, StoreClient::Clock::time_point deadline,
                        c10::intrusive_ptr<SealedStore>* out);

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;
#if TORCH_VERSION_MAJOR >= 2
  c10::intrusive_ptr<c10d::Store> clone() override;
#endif

  SealedStore(std::string host, int port, std::string secret, std::chrono::milliseconds timeout,
              std::unique_ptr<StoreClient> client);

 private:
  // The reply to `request` (kOk, kMissing or kTimeout); throws on any other failure.
  store::Reply Call(const store::Request& request, std::chrono::milliseconds wait = {});

  const std::string host_;
  const int port_;
  const std::string secret_;
  std::mutex mutex_;
  std::unique_ptr<StoreClient> client_;
};

}  // namespace petname::dist
