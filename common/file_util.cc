#include "common/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace petname {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::IoError(what + " " + path + ": " + std::strerror(errno));
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

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return Errno("cannot create a temporary file in", dir.string());
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = Errno("cannot write", tmpl);
      ::close(fd);
      ::unlink(tmpl.c_str());
      return st;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status st = Errno("cannot fsync", tmpl);
    ::close(fd);
    ::unlink(tmpl.c_str());
    return st;
  }
  ::close(fd);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    Status st = Errno("cannot rename onto", path);
    ::unlink(tmpl.c_str());
    return st;
  }
  return FsyncDirectory(dir.string());
}

}  // namespace petname
