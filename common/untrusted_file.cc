#include "common/untrusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace petname {
namespace {

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes the descriptor held and holds `fd` instead.
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string Named(const std::string& path, const UntrustedFileRules& rules) {
  return rules.what + " " + path;
}

Status OsError(const std::string& path, const UntrustedFileRules& rules, int err) {
  if (err == ENOENT) return Status::NotFound(Named(path, rules) + " does not exist");
  if (err == ELOOP) {
    return Status::InvalidArgument(Named(path, rules) + " is a symbolic link, not a file");
  }
  return Status::IoError("cannot read " + Named(path, rules) + ": " + std::strerror(err), err);
}

std::string Limit(const UntrustedFileRules& rules) {
  return rules.limit.empty() ? std::to_string(rules.max_bytes)
                             : rules.limit + " " + std::to_string(rules.max_bytes);
}

using Sink = std::function<void(std::string_view)>;

// Checks the open `fd` again (the path may have changed since it was looked at) and reads it
// to its end into `sink`, refusing more than rules.max_bytes; `*size` is fstat's size.
Status StreamOpen(const Fd& fd, const std::string& path, const UntrustedFileRules& rules,
                  const Sink& sink, int64_t* size = nullptr) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return OsError(path, rules, errno);
  PETNAME_RETURN_IF_ERROR(CheckUntrustedKind(path, st.st_mode, st.st_size, rules));
  if (size != nullptr) *size = st.st_size;
  std::vector<char> chunk(size_t{1} << 16);
  int64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return OsError(path, rules, errno);
    if (n == 0) break;
    total += n;
    if (total > rules.max_bytes) {
      return Status::InvalidArgument(Named(path, rules) + " has more than " + Limit(rules) +
                                     " bytes");
    }
    sink(std::string_view(chunk.data(), static_cast<size_t>(n)));
  }
  return Status::Ok();
}

// StreamOpen into `*out`, which is changed only on success.
Status ReadOpen(const Fd& fd, const std::string& path, const UntrustedFileRules& rules,
                std::string* out) {
  std::string data;
  int64_t size = 0;
  PETNAME_RETURN_IF_ERROR(StreamOpen(
      fd, path, rules,
      [&data, &size](std::string_view bytes) {
        if (data.empty()) data.reserve(static_cast<size_t>(size));
        data.append(bytes);
      },
      &size));
  *out = std::move(data);
  return Status::Ok();
}

// Opens the regular file `name` inside `root` without following a symlink below `root`.
Status OpenIn(const std::string& root, const std::string& name, const UntrustedFileRules& rules,
              Fd* fd) {
  const std::string path = root + "/" + name;
  if (!IsPlainRelativePath(name)) {
    return Status::InvalidArgument(Named(path, rules) + ": \"" + name +
                                   "\" is not a plain relative path");
  }
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return OsError(root, rules, errno);
  size_t begin = 0;
  for (size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', begin)) {
    const std::string part = name.substr(begin, slash - begin);
    const std::string at = root + "/" + name.substr(0, slash);
    struct stat st {};
    if (::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return OsError(at, rules, errno);
    }
    if (!S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(Named(at, rules) + " is not a directory");
    }
    const int next =
        ::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return OsError(at, rules, errno);
    dir.Reset(next);
    begin = slash + 1;
  }
  const std::string leaf = name.substr(begin);
  struct stat st {};
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return OsError(path, rules, errno);
  }
  PETNAME_RETURN_IF_ERROR(CheckUntrustedKind(path, st.st_mode, st.st_size, rules));
  fd->Reset(::openat(dir.get(), leaf.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (fd->get() < 0) return OsError(path, rules, errno);
  return Status::Ok();
}

}  // namespace

Status CheckUntrustedKind(const std::string& path, mode_t mode, int64_t size,
                          const UntrustedFileRules& rules) {
  if (S_ISDIR(mode)) {
    return Status::InvalidArgument(Named(path, rules) + " is a directory, not a file");
  }
  if (S_ISLNK(mode)) {
    return Status::InvalidArgument(Named(path, rules) + " is a symbolic link, not a file");
  }
  if (!S_ISREG(mode)) {
    return Status::InvalidArgument(Named(path, rules) +
                                   " is not a regular file (a FIFO, device or socket)");
  }
  if (size > rules.max_bytes) {
    return Status::InvalidArgument(Named(path, rules) + " has " + std::to_string(size) +
                                   " bytes, more than " + Limit(rules));
  }
  return Status::Ok();
}

bool IsPlainRelativePath(const std::string& name) {
  if (name.empty()) return false;
  size_t begin = 0;
  for (;;) {
    const size_t end = name.find('/', begin);
    const std::string part = name.substr(begin, end == std::string::npos ? end : end - begin);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string::npos) return true;
    begin = end + 1;
  }
}

Status ReadUntrustedFile(const std::string& path, const UntrustedFileRules& rules,
                         std::string* out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OsError(path, rules, errno);
  PETNAME_RETURN_IF_ERROR(CheckUntrustedKind(path, st.st_mode, st.st_size, rules));
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return OsError(path, rules, errno);
  return ReadOpen(fd, path, rules, out);
}

Status ReadUntrustedFileIn(const std::string& root, const std::string& name,
                           const UntrustedFileRules& rules, std::string* out) {
  Fd fd(-1);
  PETNAME_RETURN_IF_ERROR(OpenIn(root, name, rules, &fd));
  return ReadOpen(fd, root + "/" + name, rules, out);
}

Status StreamUntrustedFileIn(const std::string& root, const std::string& name,
                             const UntrustedFileRules& rules, const Sink& chunk) {
  Fd fd(-1);
  PETNAME_RETURN_IF_ERROR(OpenIn(root, name, rules, &fd));
  return StreamOpen(fd, root + "/" + name, rules, chunk);
}

}  // namespace petname
