#include "trainer/launch/rank_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/private_dir.h"
#include "trainer/launch/log_layout.h"

namespace petname::launch {
namespace {

namespace fs = std::filesystem;

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status::IoError(what + " " + path + ": " + std::strerror(err), err);
}

int64_t SizeOrZero(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
}

}  // namespace

Status OpenPrivateFile(const std::string& path, int* fd, int64_t* size) {
  const int opened = ::open(
      path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (opened < 0) return IoError("cannot open", path, errno);
  struct stat st {};
  if (::fstat(opened, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(opened);
    return Status::IoError(path + " is not a regular file");
  }
  ::fcntl(opened, F_SETFL, O_APPEND);  // O_NONBLOCK only kept a FIFO from blocking open
  *fd = opened;
  *size = st.st_size;
  return Status::Ok();
}

std::vector<int> ListAttempts(const std::string& log_dir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(log_dir, ec)) {
    int attempt = 0;
    if (entry.is_directory(ec) && !entry.is_symlink(ec) &&
        ParseAttemptDirName(entry.path().filename().string(), &attempt)) {
      out.push_back(attempt);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> ListRanks(const std::string& attempt_dir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(attempt_dir, ec)) {
    int rank = 0;
    if (ParseRankLogName(entry.path().filename().string(), &rank)) out.push_back(rank);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status PruneAttempts(const std::string& log_dir, int current) {
  Status first;
  for (int attempt : AttemptsToRemove(ListAttempts(log_dir), current, kKeptAttempts)) {
    const std::string path = (fs::path(log_dir) / AttemptDirName(attempt)).string();
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec && first.ok()) first = IoError("cannot remove", path, ec.value());
  }
  return first;
}

Status RankLog::Open(const std::string& log_dir, int attempt, int rank, const LogLimits& limits,
                     std::unique_ptr<RankLog>* out) {
  PETNAME_RETURN_IF_ERROR(CreatePrivateDirectory(log_dir, "log directory"));
  const std::string dir = (fs::path(log_dir) / AttemptDirName(attempt)).string();
  PETNAME_RETURN_IF_ERROR(CreatePrivateDirectory(dir, "log directory"));
  int head_fd = -1;
  int64_t head_size = 0;
  PETNAME_RETURN_IF_ERROR(
      OpenPrivateFile((fs::path(dir) / RankLogName(rank)).string(), &head_fd, &head_size));
  int tail_fd = -1;
  const std::string tail = (fs::path(dir) / RankTailName(rank, 0)).string();
  const int64_t tail_size = SizeOrZero(tail);
  if (tail_size > 0) {
    int64_t ignored = 0;
    Status st = OpenPrivateFile(tail, &tail_fd, &ignored);
    if (!st.ok()) {
      ::close(head_fd);
      return st;
    }
  }
  out->reset(new RankLog(dir, rank, limits, head_fd, head_size, tail_fd, tail_size));
  return Status::Ok();
}

RankLog::RankLog(std::string dir, int rank, const LogLimits& limits, int head_fd, int64_t head_size,
                 int tail_fd, int64_t tail_size)
    : dir_(std::move(dir)),
      rank_(rank),
      head_path_((fs::path(dir_) / RankLogName(rank)).string()),
      cap_(limits, head_size, tail_size),
      head_fd_(head_fd),
      tail_fd_(tail_fd) {}

RankLog::~RankLog() {
  ::close(head_fd_);
  if (tail_fd_ >= 0) ::close(tail_fd_);
}

Status RankLog::Rotate() {
  const std::string current = (fs::path(dir_) / RankTailName(rank_, 0)).string();
  if (tail_fd_ >= 0) {
    ::close(tail_fd_);
    tail_fd_ = -1;
    const std::string older = (fs::path(dir_) / RankTailName(rank_, 1)).string();
    if (::rename(current.c_str(), older.c_str()) != 0) {
      return IoError("cannot rename", current, errno);
    }
  }
  int64_t size = 0;
  return OpenPrivateFile(current, &tail_fd_, &size);
}

void RankLog::Append(int fd, const std::string& line) {
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = IoError("cannot write", head_path_, n < 0 ? errno : ENOSPC);
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void RankLog::Write(const std::string& line) {
  if (!error_.ok()) return;
  const LogPlace place = cap_.Place(static_cast<int64_t>(line.size()));
  if (place == LogPlace::kHead) {
    Append(head_fd_, line);
    return;
  }
  if (place == LogPlace::kRotate || tail_fd_ < 0) {
    error_ = Rotate();
    if (!error_.ok()) return;
  }
  Append(tail_fd_, line);
}

}  // namespace petname::launch
