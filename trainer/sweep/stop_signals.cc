#include "trainer/sweep/stop_signals.h"

namespace petname::sweep {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void OnStopSignal(int /*signo*/) { g_stop = 1; }

}  // namespace

StopSignals::StopSignals() {
  g_stop = 0;
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &action, &old_[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

bool StopSignals::Requested() { return g_stop != 0; }

}  // namespace petname::sweep
