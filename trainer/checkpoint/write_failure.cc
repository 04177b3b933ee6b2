#include "trainer/checkpoint/write_failure.h"

#include <cerrno>
#include <filesystem>
#include <vector>

#include "common/metrics/names.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

// The symbolic name of the errno values a checkpoint write meets, else "errno N".
std::string ErrnoName(int err) {
  switch (err) {
    case ENOSPC:
      return "ENOSPC";
    case EDQUOT:
      return "EDQUOT";
    case EROFS:
      return "EROFS";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EIO:
      return "EIO";
    case ENOENT:
      return "ENOENT";
    case ENOTDIR:
      return "ENOTDIR";
    default:
      return "errno " + std::to_string(err);
  }
}

}  // namespace

const char* WriteFailureReason(const Status& st) {
  switch (st.os_error()) {
    case ENOSPC:
    case EDQUOT:
      return metrics::kFailureNoSpace;
    case EROFS:
      return metrics::kFailureReadOnly;
    case EACCES:
    case EPERM:
      return metrics::kFailurePermission;
    default:
      return metrics::kFailureIoError;
  }
}

std::string DescribeWriteFailure(int64_t epoch, const std::string& root, const Status& st) {
  std::string line =
      "checkpoint epoch " + std::to_string(epoch) + " not saved (" + WriteFailureReason(st);
  if (st.os_error() != 0) line += ", " + ErrnoName(st.os_error());
  line += "): " + st.message();
  const std::vector<std::string> kept = ListCheckpoints(root);
  if (kept.empty()) return line + "; no earlier checkpoint in " + root;
  return line + "; keeping " + (std::filesystem::path(root) / kept.back()).string();
}

}  // namespace petname::checkpoint
