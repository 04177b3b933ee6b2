#include "common/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace petname {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  const int err = errno;
  return Status::IoError(what + " " + path + ": " + std::strerror(err), err);
}

Status FsyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  int rc = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) return Errno("cannot fsync", path);
  return Status::Ok();
}

// Writes all of `contents` to `fd`, fsync'ed when `sync`, and closes it. On failure the file
// at `path` is removed too and the Status says which step failed.
Status WriteAndClose(int fd, const std::string& path, std::string_view contents, bool sync) {
  const char* p = contents.data();
  size_t left = contents.size();
  const char* failed = nullptr;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      failed = "cannot write";
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (failed == nullptr && sync && ::fsync(fd) != 0) failed = "cannot fsync";
  if (failed != nullptr) {
    Status st = Errno(failed, path);
    ::close(fd);
    ::unlink(path.c_str());
    return st;
  }
  if (::close(fd) != 0) {
    Status st = Errno("cannot close", path);
    ::unlink(path.c_str());
    return st;
  }
  return Status::Ok();
}

}  // namespace

Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot read", path);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Errno("cannot read", path);
  *out = std::move(buf).str();
  return Status::Ok();
}

Status FsyncFile(const std::string& path) { return FsyncPath(path, O_RDONLY); }

Status FsyncDirectory(const std::string& dir) { return FsyncPath(dir, O_RDONLY | O_DIRECTORY); }

Status WriteFile(const std::string& path, std::string_view contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  return WriteAndClose(fd, path, contents, /*sync=*/false);
}

Status WritePrivateFile(const std::string& path, std::string_view contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", path);
  if (::fchmod(fd, 0600) != 0) {
    Status st = Errno("cannot set the mode of", path);
    ::close(fd);
    ::unlink(path.c_str());
    return st;
  }
  return WriteAndClose(fd, path, contents, /*sync=*/false);
}

Status WriteFileAtomically(const std::string& path, std::string_view contents, mode_t mode) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return Errno("cannot create a temporary file in", dir.string());
  if (::fchmod(fd, mode) != 0) {
    Status st = Errno("cannot set the mode of", tmpl);
    ::close(fd);
    ::unlink(tmpl.c_str());
    return st;
  }
  PETNAME_RETURN_IF_ERROR(WriteAndClose(fd, tmpl, contents, /*sync=*/true));
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    Status st = Errno("cannot rename onto", path);
    ::unlink(tmpl.c_str());
    return st;
  }
  return FsyncDirectory(dir.string());
}

}  // namespace petname
