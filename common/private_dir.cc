#include "common/private_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace petname {
namespace {

Status Errno(const std::string& what, const std::string& path, int err) {
  return Status::IoError(what + " " + path + ": " + std::strerror(err), err);
}

// Why the entry `path`, which open(O_DIRECTORY | O_NOFOLLOW) refused with `err`, is not used.
Status Refused(const std::string& what, const std::string& path, int err) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Status::FailedPrecondition(what + " " + path +
                                      " is a symbolic link; refusing to write through it");
  }
  if (err == ENOTDIR) return Status::FailedPrecondition(what + " " + path + " is not a directory");
  return Errno("cannot open " + what, path, err);
}

// Holds an open directory descriptor.
class DirFd {
 public:
  DirFd() = default;
  ~DirFd() { Reset(-1); }
  DirFd(const DirFd&) = delete;
  DirFd& operator=(const DirFd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Checks the directory open as `fd` at `path` with CheckPrivateDirectoryStat.
Status CheckOpenDirectory(const std::string& what, const std::string& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Errno("cannot look at", path, errno);
  return CheckPrivateDirectoryStat(what, path, st, ::geteuid());
}

}  // namespace

Status CheckPrivateDirectoryStat(const std::string& what, const std::string& path,
                                 const struct stat& st, uid_t euid) {
  if (st.st_uid != euid) {
    return Status::FailedPrecondition(what + " " + path + " belongs to uid " +
                                      std::to_string(st.st_uid) + ", not to this process's uid " +
                                      std::to_string(euid) + "; refusing to use it");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::FailedPrecondition(what + " " + path + " is writable by " +
                                      ((st.st_mode & S_IWOTH) != 0 ? "others" : "its group") +
                                      " (mode " + mode + "); refusing to use it (chmod go-w " +
                                      path + ")");
  }
  return Status::Ok();
}

Status SetPrivateDirectoryMode(const std::string& path) {
  DirFd dir;
  dir.Reset(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) return Refused("directory", path, errno);
  if (::fchmod(dir.get(), 0700) != 0) return Errno("cannot set the mode of", path, errno);
  return Status::Ok();
}

Status CreatePrivateDirectory(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  fs::path target = fs::path(path).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "a/b/" -> "a/b"
  // The deepest part of `target` that exists; the components below it are to be created.
  fs::path existing = target;
  std::vector<std::string> missing;
  struct stat st {};
  while (::lstat(existing.c_str(), &st) != 0) {
    if (errno != ENOENT) return Errno("cannot create " + what, target.string(), errno);
    missing.insert(missing.begin(), existing.filename().string());
    if (!existing.has_parent_path() || existing.parent_path() == existing) {
      existing = ".";
      break;
    }
    existing = existing.parent_path();
  }
  DirFd dir;
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  dir.Reset(::open(existing.c_str(), missing.empty() ? flags | O_NOFOLLOW : flags));
  if (dir.get() < 0) return Refused(what, existing.string(), errno);
  if (missing.empty()) return CheckOpenDirectory(what, target.string(), dir.get());
  fs::path at = existing;
  for (size_t i = 0; i < missing.size(); ++i) {
    const std::string& name = missing[i];
    at /= name;
    const bool created = ::mkdirat(dir.get(), name.c_str(), 0700) == 0;
    if (!created && errno != EEXIST) return Errno("cannot create " + what, at.string(), errno);
    const int next = ::openat(dir.get(), name.c_str(), flags | O_NOFOLLOW);
    if (next < 0) return Refused(what, at.string(), errno);
    dir.Reset(next);
    if (!created && i + 1 == missing.size()) {  // made by someone else since the lstat
      return CheckOpenDirectory(what, at.string(), dir.get());
    }
    if (!created) continue;
    if (::fstat(dir.get(), &st) != 0) return Errno("cannot look at", at.string(), errno);
    if (st.st_uid != ::geteuid()) {
      return Status::FailedPrecondition(what + " " + at.string() +
                                        " was replaced by another user's directory");
    }
    if (::fchmod(dir.get(), 0700) != 0) return Errno("cannot set the mode of", at.string(), errno);
  }
  return Status::Ok();
}

}  // namespace petname
