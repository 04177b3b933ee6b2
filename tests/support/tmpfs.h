// Tmpfs: a size-limited tmpfs mounted on a fresh directory for the life of the object, to give
// tests a real file system that fills up or turns read-only. Needs CAP_SYS_ADMIN (root, as the
// suite runs); where mounting is not permitted, path() is empty and error() says why, and the
// test skips with that reason.
#pragma once

#include <cstdint>
#include <string>

#include "tests/support/temp_dir.h"

namespace petname::testing {

class Tmpfs {
 public:
  explicit Tmpfs(int64_t size_bytes);
  ~Tmpfs();  // unmounts (lazily, so an open file cannot keep it)
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // Remounts read-only (true) or read-write (false); false with error() set on failure.
  bool SetReadOnly(bool read_only);

  // Bytes still free for an unprivileged writer.
  int64_t FreeBytes() const;

 private:
  TempDir dir_;
  std::string path_;
  std::string error_;
  int64_t size_bytes_;
};

}  // namespace petname::testing
