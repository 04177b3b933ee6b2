#include "trainer/distributed/store_protocol.h"

#include <algorithm>

#include "common/sha256.h"

namespace petname::dist::store {
namespace {

// Keys one request may name (kCheck, kWait).
constexpr uint32_t kMaxKeysPerRequest = 65536;

void PutU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutI64(int64_t v, std::string* out) {
  const auto u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

void PutBytes(std::string_view s, std::string* out) {
  PutU32(static_cast<uint32_t>(s.size()), out);
  out->append(s);
}

uint64_t LittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
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

bool IsHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The MAC one side of a connection shows: `role` over both nonces, under the job's secret.
std::string Proof(const std::string& secret, const char* role, std::string_view server_nonce,
                  std::string_view client_nonce) {
  std::string text = "petname store ";
  text.append(role).append("\n").append(server_nonce).append("\n").append(client_nonce);
  return HmacSha256Hex(secret, text);
}

std::string RefusedAnswer() {
  std::string answer = kRefusedAnswer;
  answer.resize(kAnswerBytes, ' ');
  return answer;
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

std::string Channel::Mac(uint64_t number, std::string_view body) const {
  std::string text = dir_;
  text.append("\n").append(std::to_string(number)).append("\n").append(body);
  return HmacSha256Hex(key_, text);
}

std::string Channel::Seal(std::string_view body) {
  std::string message;
  message.reserve(kLengthBytes + body.size() + kMacBytes);
  PutU32(static_cast<uint32_t>(body.size()), &message);
  message.append(body);
  message.append(Mac(next_++, body));
  return message;
}

Channel::Result Channel::Open(std::string* in, std::string* body, std::string* why) {
  if (in->size() < kLengthBytes) return Result::kNeedMore;
  const uint64_t length = LittleEndian(std::string_view(*in).substr(0, kLengthBytes));
  if (length > kMaxBodyBytes) {
    *why = "it declared a message of " + std::to_string(length) + " bytes, over the limit of " +
           std::to_string(kMaxBodyBytes);
    return Result::kBad;
  }
  if (in->size() < kLengthBytes + length + kMacBytes) return Result::kNeedMore;
  const std::string_view text = std::string_view(*in).substr(kLengthBytes, length);
  const std::string_view mac = std::string_view(*in).substr(kLengthBytes + length, kMacBytes);
  if (!EqualInConstantTime(mac, Mac(next_, text))) {
    *why = "a message whose MAC does not verify (altered, replayed or out of order)";
    return Result::kBad;
  }
  ++next_;
  body->assign(text);
  in->erase(0, kLengthBytes + length + kMacBytes);
  return Result::kMessage;
}

ServerSession::ServerSession(std::string secret, std::string nonce)
    : secret_(std::move(secret)), nonce_(std::move(nonce)) {}

std::string ServerSession::Greeting() const { return std::string(kMagic, kMagicBytes) + nonce_; }

ServerSession::Event ServerSession::Feed(std::string* in, std::string* out, Request* request,
                                         std::string* why) {
  out->clear();
  if (!authenticated_) {
    const size_t seen = std::min(in->size(), kMagicBytes);
    if (in->compare(0, seen, kMagic, seen) != 0) {
      *why = "it sent bytes that do not open a petname store handshake";
      return Event::kRefused;
    }
    if (in->size() < kHelloBytes) return Event::kNeedMore;
    const std::string client_nonce = in->substr(kMagicBytes, kNonceBytes);
    const std::string mac = in->substr(kMagicBytes + kNonceBytes, kMacBytes);
    in->erase(0, kHelloBytes);
    if (!IsHex(client_nonce) ||
        !EqualInConstantTime(mac, Proof(secret_, "client", nonce_, client_nonce))) {
      *out = RefusedAnswer();
      *why = "it did not prove the job's rendezvous secret";
      return Event::kRefused;
    }
    const std::string key = Proof(secret_, "session", nonce_, client_nonce);
    to_client_ = Channel(key, "s>c");
    from_client_ = Channel(key, "c>s");
    authenticated_ = true;
    *out = Proof(secret_, "server", nonce_, client_nonce);
    return Event::kAuthenticated;
  }
  std::string body;
  switch (from_client_.Open(in, &body, why)) {
    case Channel::Result::kNeedMore:
      return Event::kNeedMore;
    case Channel::Result::kBad:
      return Event::kRefused;
    case Channel::Result::kMessage:
      break;
  }
  return DecodeRequest(body, request, why) ? Event::kRequest : Event::kRefused;
}

ClientSession::ClientSession(std::string secret, std::string nonce)
    : secret_(std::move(secret)), nonce_(std::move(nonce)) {}

bool ClientSession::Hello(std::string_view greeting, std::string* hello, std::string* why) {
  if (greeting.size() != kGreetingBytes || greeting.substr(0, kMagicBytes) != kMagic ||
      !IsHex(greeting.substr(kMagicBytes))) {
    *why = "the peer does not speak the petname store protocol";
    return false;
  }
  server_nonce_ = greeting.substr(kMagicBytes);
  *hello =
      std::string(kMagic, kMagicBytes) + nonce_ + Proof(secret_, "client", server_nonce_, nonce_);
  return true;
}

ClientSession::Answer ClientSession::Accept(std::string_view answer) {
  if (!EqualInConstantTime(answer, Proof(secret_, "server", server_nonce_, nonce_))) {
    return answer == RefusedAnswer() ? Answer::kRefused : Answer::kUnproven;
  }
  const std::string key = Proof(secret_, "session", server_nonce_, nonce_);
  to_server_ = Channel(key, "c>s");
  from_server_ = Channel(key, "s>c");
  return Answer::kProven;
}

Channel::Result ClientSession::OpenReply(std::string* in, Reply* reply, std::string* why) {
  std::string body;
  const Channel::Result result = from_server_.Open(in, &body, why);
  if (result != Channel::Result::kMessage) return result;
  return DecodeReply(body, reply, why) ? result : Channel::Result::kBad;
}

}  // namespace petname::dist::store
