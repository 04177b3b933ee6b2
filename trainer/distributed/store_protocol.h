// The wire protocol of the rendezvous store (store_server.h, store_client.h): a handshake in
// which the client and the server each prove that they hold the job's secret, then requests and
// replies sealed with a key of that connection. Pure (no sockets, no LibTorch), unit-tested under
// sanitizers.
//
// Handshake (fixed sizes, so that no length read from a peer that has proved nothing is ever
// trusted):
//  1. server -> client: kMagic + the server's nonce (32 hex digits): 40 bytes;
//  2. client -> server: kMagic + the client's nonce + HMAC(secret, "client" over both nonces):
//     104 bytes. The server checks each byte of kMagic as it arrives (one wrong byte refuses the
//     connection at once) and the MAC once all 104 are in;
//  3. server -> client: HMAC(secret, "server" over both nonces), or kRefusedAnswer when the
//     client's MAC did not verify: 64 bytes. The client checks it: a process that listens on the
//     master's port without the secret cannot pass for the store.
// Both nonces are fresh random hex for each connection, so no recorded handshake replays. The
// key of the connection is HMAC(secret, "session" over both nonces).
//
// Messages (after the handshake, both directions): a 4-byte little-endian body length (at most
// kMaxBodyBytes: a larger one refuses the connection before anything is allocated), the body,
// and HMAC(key, direction, message number, body) as 64 hex digits. A message altered, dropped,
// reordered or replayed on the wire fails its MAC. With an empty secret (ranks started by hand
// without one) every step is the same, and anyone can compute it. The bodies are requests and
// replies (store_message.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "trainer/distributed/store_message.h"

namespace petname::dist::store {

inline constexpr char kMagic[] = "PNSTORE1";  // 8 bytes, no terminator on the wire
inline constexpr size_t kMagicBytes = 8;
inline constexpr size_t kNonceBytes = 32;  // hex digits
inline constexpr size_t kMacBytes = 64;    // hex digits of an HMAC-SHA256
inline constexpr size_t kGreetingBytes = kMagicBytes + kNonceBytes;
inline constexpr size_t kHelloBytes = kMagicBytes + kNonceBytes + kMacBytes;
inline constexpr size_t kAnswerBytes = kMacBytes;
// What the server answers a client whose MAC did not verify, padded to kAnswerBytes.
inline constexpr char kRefusedAnswer[] = "refused: not the job's rendezvous secret";

inline constexpr size_t kLengthBytes = 4;

// One direction of a connection's messages: seals outgoing bodies, or opens incoming ones, each
// numbered from 0.
class Channel {
 public:
  Channel(std::string key, std::string direction)
      : key_(std::move(key)), dir_(std::move(direction)) {}

  // The whole message for `body` (length, body, MAC).
  std::string Seal(std::string_view body);

  enum class Result { kNeedMore, kMessage, kBad };
  // Takes one message off the front of *in: kNeedMore until it is whole; kMessage with *body;
  // kBad with *why for a declared length over kMaxBodyBytes (known from its first 4 bytes) or a
  // MAC that does not verify.
  Result Open(std::string* in, std::string* body, std::string* why);

 private:
  std::string Mac(uint64_t number, std::string_view body) const;

  std::string key_;
  std::string dir_;
  uint64_t next_ = 0;
};

// The server's side of one connection.
class ServerSession {
 public:
  // `nonce`: fresh random hex of kNonceBytes digits (NewNonce).
  ServerSession(std::string secret, std::string nonce);

  // What the server sends first.
  std::string Greeting() const;

  enum class Event { kNeedMore, kAuthenticated, kRequest, kRefused };
  // Takes what it can use off the front of *in. kAuthenticated: the client proved the secret and
  // *out holds the server's answer. kRequest: *request holds the next request. kRefused: *why
  // says what the client did wrong, and *out holds what to send before closing (possibly empty).
  Event Feed(std::string* in, std::string* out, Request* request, std::string* why);

  std::string SealReply(const Reply& reply) { return to_client_.Seal(EncodeReply(reply)); }
  bool authenticated() const { return authenticated_; }

 private:
  std::string secret_;
  std::string nonce_;
  bool authenticated_ = false;
  Channel to_client_{"", ""};
  Channel from_client_{"", ""};
};

// The client's side of one connection.
class ClientSession {
 public:
  ClientSession(std::string secret, std::string nonce);

  // From the server's greeting (kGreetingBytes), the hello to send; false with *why when it is
  // not a greeting.
  bool Hello(std::string_view greeting, std::string* hello, std::string* why);
  enum class Answer { kProven, kRefused, kUnproven };
  // Checks the server's answer (kAnswerBytes): kProven when it proved the secret, kRefused when
  // the server refused this client's proof, kUnproven when it proved nothing (not the job's
  // store).
  Answer Accept(std::string_view answer);

  std::string SealRequest(const Request& request) {
    return to_server_.Seal(EncodeRequest(request));
  }
  // Channel::Open for the next reply, decoded.
  Channel::Result OpenReply(std::string* in, Reply* reply, std::string* why);

 private:
  std::string secret_;
  std::string nonce_;
  std::string server_nonce_;
  Channel to_server_{"", ""};
  Channel from_server_{"", ""};
};

}  // namespace petname::dist::store
