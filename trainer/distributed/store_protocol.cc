#include "trainer/distributed/store_protocol.h"

#include <algorithm>

#include "common/sha256.h"

namespace petname::dist::store {
namespace {

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
