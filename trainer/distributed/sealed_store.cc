#include "trainer/distributed/sealed_store.h"

#include <c10/util/Exception.h>

#include <cstdio>

namespace petname::dist {
namespace {

using Clock = StoreClient::Clock;
using store::Code;
using store::Op;
using store::Request;

// How long past a wait's own timeout the store's answer (kTimeout) may take to arrive.
constexpr std::chrono::seconds kAnswerGrace(10);

[[noreturn]] void Fail(const std::string& message) {
#if TORCH_VERSION_MAJOR >= 2
  C10_THROW_ERROR(DistStoreError, message);
#else
  TORCH_CHECK(false, message);
#endif
}

std::string Bytes(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::vector<uint8_t> Bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::string Seconds(std::chrono::milliseconds d) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", std::chrono::duration<double>(d).count());
  return text;
}

// Refuses a key or value the store would not take, naming it.
void CheckSizes(const Request& request) {
  for (const std::string& key : request.keys) {
    if (key.size() > store::kMaxKeyBytes) {
      Fail("rendezvous store: a key of " + std::to_string(key.size()) +
           " bytes is over the store's limit of " + std::to_string(store::kMaxKeyBytes));
    }
  }
  for (const std::string* value : {&request.value, &request.expected}) {
    if (value->size() > store::kMaxValueBytes) {
      Fail("rendezvous store: the value of key " + request.keys.at(0) + " has " +
           std::to_string(value->size()) + " bytes, over the store's limit of " +
           std::to_string(store::kMaxValueBytes));
    }
  }
}

}  // namespace

SealedStore::SealedStore(std::string host, int port, std::string secret,
                         std::chrono::milliseconds timeout, std::unique_ptr<StoreClient> client)
    : c10d::Store(timeout),
      host_(std::move(host)),
      port_(port),
      secret_(std::move(secret)),
      client_(std::move(client)) {}

Status SealedStore::Connect(const std::string& host, int port, const std::string& secret,
                            std::chrono::milliseconds timeout, Clock::time_point deadline,
                            c10::intrusive_ptr<SealedStore>* out) {
  std::unique_ptr<StoreClient> client;
  PETNAME_RETURN_IF_ERROR(StoreClient::Connect(host, port, secret, deadline, &client));
  *out = c10::make_intrusive<SealedStore>(host, port, secret, timeout, std::move(client));
  return Status::Ok();
}

store::Reply SealedStore::Call(const Request& request, std::chrono::milliseconds wait) {
  CheckSizes(request);
  std::chrono::milliseconds limit = timeout_;
  if (request.op == Op::kWait) limit = wait == kNoTimeout ? kNoTimeout : wait + kAnswerGrace;
  const auto deadline = limit == kNoTimeout ? Clock::time_point::max() : Clock::now() + limit;
  store::Reply reply;
  Status st;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    st = client_->Call(request, deadline, &reply);
  }
  if (!st.ok()) Fail(st.message());
  if (reply.code == Code::kError) Fail("rendezvous store: " + reply.value);
  return reply;
}

void SealedStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Call(store::MakeRequest(Op::kSet, {key}, Bytes(value)));
}

std::vector<uint8_t> SealedStore::compareSet(const std::string& key,
                                             const std::vector<uint8_t>& expected,
                                             const std::vector<uint8_t>& desired) {
  Request request = store::MakeRequest(Op::kCompareSet, {key}, Bytes(desired));
  request.expected = Bytes(expected);
  return Bytes(Call(request).value);
}

std::vector<uint8_t> SealedStore::get(const std::string& key) {
  wait({key});
  const store::Reply reply = Call(store::MakeRequest(Op::kGet, {key}));
  if (reply.code == Code::kMissing) Fail("rendezvous store: key " + key + " was deleted");
  return Bytes(reply.value);
}

int64_t SealedStore::add(const std::string& key, int64_t value) {
  return Call(store::MakeRequest(Op::kAdd, {key}, "", value)).number;
}

bool SealedStore::deleteKey(const std::string& key) {
  return Call(store::MakeRequest(Op::kDelete, {key})).number != 0;
}

bool SealedStore::check(const std::vector<std::string>& keys) {
  return Call(store::MakeRequest(Op::kCheck, keys)).number != 0;
}

int64_t SealedStore::getNumKeys() { return Call(store::MakeRequest(Op::kNumKeys, {})).number; }

void SealedStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void SealedStore::wait(const std::vector<std::string>& keys,
                       const std::chrono::milliseconds& timeout) {
  if (Call(store::MakeRequest(Op::kWait, keys, "", timeout.count()), timeout).code ==
      Code::kTimeout) {
    std::string names;
    for (const std::string& key : keys) names += (names.empty() ? "" : ", ") + key;
    Fail("rendezvous store: waited " + Seconds(timeout) + " for " + names);
  }
}

#if TORCH_VERSION_MAJOR >= 2
c10::intrusive_ptr<c10d::Store> SealedStore::clone() {
  c10::intrusive_ptr<SealedStore> copy;
  const Status st = Connect(host_, port_, secret_, timeout_, Clock::now() + timeout_, &copy);
  if (!st.ok()) Fail("rendezvous store: " + st.message());
  return copy;
}
#endif

}  // namespace petname::dist
