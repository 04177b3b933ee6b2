#include "trainer/metrics/katib_metrics_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/time_util.h"

namespace petname::metrics {
namespace {

using nlohmann::json;

// Adds `value` under `key` as the shortest decimal text that reads back as the same double.
void PutNumber(json* object, const char* key, double value) {
  if (std::isfinite(value)) (*object)[key] = json(value).dump();
}

Status Errno(const std::string& what, const std::string& path, int err) {
  return Status::IoError(what + " " + path + ": " + std::strerror(err), err);
}

Status NotARegularFile(const std::string& path) {
  return Status::InvalidArgument("the Katib metrics file " + path +
                                 " is not a regular file (a FIFO, device or socket)");
}

// Opens `path` for appending, creating it (mode 0644) if needed. Neither follows a symbolic
// link there nor waits for a FIFO's reader, and takes nothing but a regular file.
Status OpenForAppend(const std::string& path, int* fd) {
  *fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW,
               0644);
  if (*fd < 0 && errno == ELOOP) {
    return Status::InvalidArgument("the Katib metrics file " + path +
                                   " is a symbolic link, which is not followed");
  }
  if (*fd < 0 && errno == ENXIO) return NotARegularFile(path);  // a FIFO without a reader
  if (*fd < 0) return Errno("cannot open the Katib metrics file", path, errno);
  struct stat st {};
  if (::fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(*fd);
    return NotARegularFile(path);
  }
  return Status::Ok();
}

// `dir` as an absolute, lexically normal path without a trailing separator.
std::filesystem::path Directory(const std::filesystem::path& dir) {
  std::filesystem::path normal = std::filesystem::absolute(dir).lexically_normal();
  if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path();
  return normal;
}

}  // namespace

std::string ToKatibJsonLine(const EpochRecord& record) {
  json object = json::object();
  object["epoch"] = std::to_string(record.epoch);
  PutNumber(&object, "trainLoss", record.train_loss);
  PutNumber(&object, "validationLoss", record.validation_loss);
  PutNumber(&object, "validationAccuracy", record.validation_accuracy);
  PutNumber(&object, "samplesPerSecond", record.samples_per_second);
  PutNumber(&object, "learningRate", record.learning_rate);
  PutNumber(&object, "elapsedSeconds", record.elapsed_seconds);
  // Rounded, not truncated, to the millisecond printed: in nanoseconds .25 s can land below .25.
  const auto when =
      std::chrono::system_clock::time_point(std::chrono::round<std::chrono::milliseconds>(
          std::chrono::duration<double>(record.timestamp)));
  object["timestamp"] = Rfc3339(when, 3);
  return object.dump();
}

Status CheckKatibMetricsPath(const std::string& path, const std::string& checkpoint_dir) {
  if (path.empty() || checkpoint_dir.empty()) return Status::Ok();
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (Directory(dir.empty() ? "." : dir) == Directory(checkpoint_dir)) {
    return Status::InvalidArgument(
        "--katib-metrics-file must not be in --checkpoint-dir (Katib mounts an emptyDir over the "
        "metrics file's directory, which would hide the checkpoints)");
  }
  return Status::Ok();
}

Status CreateKatibMetricsFile(const std::string& path) {
  int fd = -1;
  PETNAME_RETURN_IF_ERROR(OpenForAppend(path, &fd));
  ::close(fd);
  return Status::Ok();
}

Status AppendKatibMetrics(const std::string& path, const EpochRecord& record) {
  const std::string line = ToKatibJsonLine(record) + "\n";
  int fd = -1;
  PETNAME_RETURN_IF_ERROR(OpenForAppend(path, &fd));
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int err = errno;
  if (::close(fd) != 0 && written >= 0) {
    return Errno("cannot close the Katib metrics file", path, errno);
  }
  if (written < 0) return Errno("cannot write the Katib metrics file", path, err);
  if (static_cast<size_t>(written) != line.size()) {
    return Status::IoError("short write to the Katib metrics file " + path);
  }
  return Status::Ok();
}

}  // namespace petname::metrics
