#include "trainer/data/data_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trainer/data/gzip.h"

namespace petname::data {
namespace {

Status OsError(const std::string& path, int err) {
  if (err == ENOENT) return Status::NotFound("data file " + path + " does not exist");
  return Status::IoError("cannot read " + path + ": " + std::strerror(err), err);
}

// Why `st` (of `path`) is not a data file of at most `max_bytes`, or Ok.
Status CheckKind(const std::string& path, const struct stat& st, int64_t max_bytes) {
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("data path " + path + " is a directory, not a file");
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("data path " + path +
                                   " is not a regular file (a FIFO, device or socket)");
  }
  if (st.st_size > max_bytes) {
    return Status::InvalidArgument("data file " + path + " has " + std::to_string(st.st_size) +
                                   " bytes, more than --max-data-bytes " +
                                   std::to_string(max_bytes));
  }
  return Status::Ok();
}

// Reads `fd` to its end, refusing more than `max_bytes` (the file may grow after fstat()).
Status ReadAll(int fd, const std::string& path, int64_t max_bytes, size_t expected,
               std::string* out) {
  std::string data;
  data.reserve(expected);
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return OsError(path, errno);
    if (n == 0) break;
    data.append(chunk, static_cast<size_t>(n));
    if (static_cast<int64_t>(data.size()) > max_bytes) {
      return Status::InvalidArgument("data file " + path + " has more than --max-data-bytes " +
                                     std::to_string(max_bytes) + " bytes");
    }
  }
  *out = std::move(data);
  return Status::Ok();
}

// Replaces `*contents` (the bytes of the gzip file `path`) by its decompressed data.
Status Decompress(const std::string& path, int64_t max_bytes, std::string* contents) {
  std::string text;
  Status st = Gunzip(*contents, max_bytes, &text);
  if (st.code() == Status::Code::kInvalidArgument) {
    return Status::InvalidArgument("data file " + path +
                                   " is gzip-compressed and decompresses to more than "
                                   "--max-data-bytes " +
                                   std::to_string(max_bytes) + " bytes");
  }
  if (st.code() == Status::Code::kCorruption) {
    return Status::Corruption("data file " + path + ": " + st.message());
  }
  PETNAME_RETURN_IF_ERROR(st);
  *contents = std::move(text);
  return Status::Ok();
}

}  // namespace

Status ReadDataFile(const std::string& path, int64_t max_bytes, DataFileContents* out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OsError(path, errno);
  PETNAME_RETURN_IF_ERROR(CheckKind(path, st, max_bytes));
  // O_NONBLOCK: should the path have become a FIFO since stat(), open() must not wait for it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return OsError(path, errno);
  Status result = ::fstat(fd, &st) == 0 ? CheckKind(path, st, max_bytes) : OsError(path, errno);
  std::string contents;
  if (result.ok()) {
    result = ReadAll(fd, path, max_bytes, static_cast<size_t>(st.st_size), &contents);
  }
  ::close(fd);
  PETNAME_RETURN_IF_ERROR(result);
  out->gzipped = IsGzip(contents);
  if (out->gzipped) PETNAME_RETURN_IF_ERROR(Decompress(path, max_bytes, &contents));
  out->text = std::move(contents);
  return Status::Ok();
}

}  // namespace petname::data
