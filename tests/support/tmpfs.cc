#include "tests/support/tmpfs.h"

#include <sys/mount.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

namespace petname::testing {
namespace {

std::string SizeOption(int64_t size_bytes) { return "size=" + std::to_string(size_bytes); }

}  // namespace

Tmpfs::Tmpfs(int64_t size_bytes) : size_bytes_(size_bytes) {
  if (dir_.path().empty()) {
    error_ = "cannot create a temporary directory";
    return;
  }
  const std::string options = SizeOption(size_bytes);
  if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options.c_str()) != 0) {
    error_ = "cannot mount a tmpfs on " + dir_.path() + ": " + std::strerror(errno);
    return;
  }
  path_ = dir_.path();
}

Tmpfs::~Tmpfs() {
  if (!path_.empty()) ::umount2(path_.c_str(), MNT_DETACH);
}

bool Tmpfs::SetReadOnly(bool read_only) {
  const std::string options = SizeOption(size_bytes_);
  const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
  if (::mount(nullptr, path_.c_str(), nullptr, flags, options.c_str()) != 0) {
    error_ = "cannot remount " + path_ + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

int64_t Tmpfs::FreeBytes() const {
  struct statvfs st {};
  if (::statvfs(path_.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
}

}  // namespace petname::testing
