#include "trainer/distributed/store_message.h"

#include <utility>

namespace petname::dist::store {

void PutU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t LittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

namespace {

// Keys one request may name (kCheck, kWait).
constexpr uint32_t kMaxKeysPerRequest = 65536;

void PutI64(int64_t v, std::string* out) {
  const auto u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

void PutBytes(std::string_view s, std::string* out) {
  PutU32(static_cast<uint32_t>(s.size()), out);
  out->append(s);
}

// Reads fields off the front of a body; any read past its end (or over `limit`) fails, and so
// does every read after it.
class Reader {
 public:
  explicit Reader(std::string_view body) : rest_(body) {}

  bool Take(size_t n, std::string_view* out) {
    ok_ = ok_ && rest_.size() >= n;
    if (!ok_) return false;
    *out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  bool U32(uint32_t* v) {
    std::string_view b;
    if (!Take(4, &b)) return false;
    *v = static_cast<uint32_t>(LittleEndian(b));
    return true;
  }
  bool I64(int64_t* v) {
    std::string_view b;
    if (!Take(8, &b)) return false;
    *v = static_cast<int64_t>(LittleEndian(b));
    return true;
  }
  bool Bytes(size_t limit, std::string* out) {
    uint32_t n = 0;
    std::string_view b;
    if (!U32(&n) || n > limit || !Take(n, &b)) {
      ok_ = false;
      return false;
    }
    out->assign(b);
    return true;
  }
  bool done() const { return ok_ && rest_.empty(); }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

// The keys each operation takes: exactly one, none, or at least one.
bool KeysFit(Op op, size_t keys) {
  switch (op) {
    case Op::kSet:
    case Op::kGet:
    case Op::kAdd:
    case Op::kCompareSet:
    case Op::kDelete:
      return keys == 1;
    case Op::kNumKeys:
      return keys == 0;
    case Op::kCheck:
    case Op::kWait:
      return keys >= 1;
  }
  return false;
}

}  // namespace

Request MakeRequest(Op op, std::vector<std::string> keys, std::string value, int64_t number) {
  Request request;
  request.op = op;
  request.keys = std::move(keys);
  request.value = std::move(value);
  request.number = number;
  return request;
}

std::string EncodeRequest(const Request& request) {
  std::string body(1, static_cast<char>(request.op));
  PutI64(request.number, &body);
  PutBytes(request.value, &body);
  PutBytes(request.expected, &body);
  PutU32(static_cast<uint32_t>(request.keys.size()), &body);
  for (const std::string& key : request.keys) PutBytes(key, &body);
  return body;
}

bool DecodeRequest(std::string_view body, Request* request, std::string* why) {
  Reader r(body);
  std::string_view op;
  uint32_t keys = 0;
  if (!r.Take(1, &op) || !r.I64(&request->number) || !r.Bytes(kMaxValueBytes, &request->value) ||
      !r.Bytes(kMaxValueBytes, &request->expected) || !r.U32(&keys) || keys > kMaxKeysPerRequest) {
    *why = "a request that is cut short, or with a value over " + std::to_string(kMaxValueBytes) +
           " bytes";
    return false;
  }
  request->op = static_cast<Op>(op[0]);
  request->keys.assign(keys, std::string());
  for (std::string& key : request->keys) {
    if (!r.Bytes(kMaxKeyBytes, &key)) {
      *why = "a request with a key over " + std::to_string(kMaxKeyBytes) + " bytes, or cut short";
      return false;
    }
  }
  const auto code = static_cast<uint8_t>(op[0]);
  if (code < static_cast<uint8_t>(Op::kSet) || code > static_cast<uint8_t>(Op::kWait) ||
      !KeysFit(request->op, keys) || !r.done() ||
      (request->op == Op::kWait && request->number < 0)) {
    *why = "a request of no known operation, with the wrong keys, or with bytes after it";
    return false;
  }
  return true;
}

std::string EncodeReply(const Reply& reply) {
  std::string body(1, static_cast<char>(reply.code));
  PutI64(reply.number, &body);
  PutBytes(reply.value, &body);
  return body;
}

bool DecodeReply(std::string_view body, Reply* reply, std::string* why) {
  Reader r(body);
  std::string_view code;
  if (!r.Take(1, &code) || !r.I64(&reply->number) || !r.Bytes(kMaxBodyBytes, &reply->value) ||
      !r.done() || static_cast<uint8_t>(code[0]) < static_cast<uint8_t>(Code::kOk) ||
      static_cast<uint8_t>(code[0]) > static_cast<uint8_t>(Code::kError)) {
    *why = "a reply that is not one";
    return false;
  }
  reply->code = static_cast<Code>(code[0]);
  return true;
}

}  // namespace petname::dist::store
