// SHA-256 digests as lower-case hex strings (OpenSSL EVP underneath).
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

// Streams the file at `path` through SHA-256.
Status Sha256File(const std::string& path, std::string* hex);

}  // namespace petname
