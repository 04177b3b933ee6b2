#include "common/status.h"

namespace petname {
namespace {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kInvalidArgument:
      return "invalid argument";
    case Status::Code::kNotFound:
      return "not found";
    case Status::Code::kIoError:
      return "I/O error";
    case Status::Code::kCorruption:
      return "corruption";
    case Status::Code::kFailedPrecondition:
      return "failed precondition";
    case Status::Code::kUnavailable:
      return "unavailable";
    case Status::Code::kInternal:
      return "internal error";
  }
  return "unknown";
}

}  // namespace

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

int Status::ExitCode() const {
  if (ok()) return 0;
  return code_ == Code::kInvalidArgument ? 2 : 1;
}

}  // namespace petname
