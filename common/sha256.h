// SHA-256 digests and HMAC-SHA256 as lower-case hex strings (OpenSSL underneath), and random
// hex strings for secrets and ids.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace petname {

// Incremental hasher: Update() any number of times, then HexDigest() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  std::string HexDigest();

 private:
  struct Impl;
  Impl* impl_;
};

std::string Sha256Hex(std::string_view data);

// HMAC-SHA256 (RFC 2104) of `data` under `key`, lower-case hex.
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// Constant-time equality of two strings of the same length (false when lengths differ), for
// comparing MACs.
bool EqualInConstantTime(std::string_view a, std::string_view b);

// `bytes` bytes from the operating system's random source (getrandom), lower-case hex. Internal
// when the source fails.
Status RandomHex(size_t bytes, std::string* hex);

// Streams the file at `path` through SHA-256 (a file this process trusts; untrusted files are
// read through untrusted_file.h and hashed with Sha256Hex).
Status Sha256File(const std::string& path, std::string* hex);

}  // namespace petname
