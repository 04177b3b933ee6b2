// Status: the result of an operation that can fail, carried across module boundaries
// instead of exceptions (LevelDB style). A default-constructed Status is OK.
//
// The code decides the process exit code at the CLI edge: kInvalidArgument is a usage
// error (exit 2); every other failure is a runtime error (exit 1).
#pragma once

#include <string>
#include <utility>

namespace petname {

class Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,     // the caller's input is wrong (flags, values, data shape)
    kNotFound,            // a file, key or object that must exist does not
    kIoError,             // the OS refused a read or write
    kCorruption,          // stored data fails a check (checksum, format, parse)
    kFailedPrecondition,  // the state does not allow it (e.g. incompatible checkpoint)
    kUnavailable,         // a peer or server did not answer in time; retryable
    kInternal,            // a bug or an unexpected library failure
  };

  Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status IoError(std::string msg) { return {Code::kIoError, std::move(msg)}; }
  // An I/O error caused by the OS error `os_error` (an errno value, e.g. ENOSPC).
  static Status IoError(std::string msg, int os_error) {
    Status st(Code::kIoError, std::move(msg));
    st.os_error_ = os_error;
    return st;
  }
  static Status Corruption(std::string msg) { return {Code::kCorruption, std::move(msg)}; }
  static Status FailedPrecondition(std::string msg) {
    return {Code::kFailedPrecondition, std::move(msg)};
  }
  static Status Unavailable(std::string msg) { return {Code::kUnavailable, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The errno value behind a kIoError when it was given, else 0.
  int os_error() const { return os_error_; }

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

  // 0 for OK, 2 for kInvalidArgument, 1 otherwise.
  int ExitCode() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
  int os_error_ = 0;
};

}  // namespace petname

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define PETNAME_RETURN_IF_ERROR(expr) \
  do {                                \
    ::petname::Status _st = (expr);   \
    if (!_st.ok()) return _st;        \
  } while (0)
