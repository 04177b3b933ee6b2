// SIGINT and SIGTERM while a sweep runs (runner.h): for the life of a StopSignals each only
// raises a flag, which the runner polls to stop its trials (each saves a checkpoint) and write
// sweep.json before it returns. The handlers in place before come back when it ends.
#pragma once

#include <csignal>

namespace petname::sweep {

class StopSignals {
 public:
  // Clears the flag and installs the handlers.
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // True once SIGINT or SIGTERM has arrived since the last StopSignals began.
  static bool Requested();

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  struct sigaction old_[2] = {};
};

}  // namespace petname::sweep
