#include "trainer/distributed/stop_signal.h"

#include <unistd.h>

#include <csignal>

namespace petname::dist {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void OnStopSignal(int) { g_stop = 1; }

void ExitOnStopSignal(int) {
  static constexpr char kLine[] = "petname: error: stopped by SIGTERM before training started\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kLine, sizeof(kLine) - 1);
  ::_exit(kExitPreempted);
}

void Install(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

void InstallExitOnStop() { Install(ExitOnStopSignal); }

void InstallStopHandler() { Install(OnStopSignal); }

bool StopRequested() { return g_stop != 0; }

void ClearStopRequest() { g_stop = 0; }

}  // namespace petname::dist
