// The training loop's side of the intra-op thread tuner (thread_tuner.h): it reads the CPU
// wait of the process's threads (launch/cpu_wait.h) around the steps, sets LibTorch's thread
// count to the tuner's, and notes each change of the settled count on the reporter and in the
// petname_intra_op_threads gauge. With a maximum of 1 it does nothing at all.
#pragma once

#include <cstdint>

#include "trainer/train/reporter.h"
#include "trainer/train/run_recorder.h"
#include "trainer/train/thread_tuner.h"

namespace petname::train {

class TunedThreads {
 public:
  // Training runs with at most `max_threads` (the count already set, train.h
  // ConfigureThreads); it starts below that when other processes' threads are runnable
  // (StartingThreads over the affinity mask's CPUs).
  TunedThreads(int max_threads, RunRecorder* recorder, Reporter* reporter);

  // Before an epoch's first step: the CPU wait from here on is the steps'.
  void BeginEpoch();
  // After each step: `seconds` it computed (without waiting for other ranks) on `rows` rows.
  void AfterStep(double seconds, int64_t rows);

 private:
  void Apply(int settled_before);

  const int max_;
  const int cpus_;  // of the affinity mask
  RunRecorder* recorder_;
  Reporter* reporter_;
  ThreadTuner tuner_;
  double cpu_wait_ = 0;  // the process's CPU wait after the last step
};

}  // namespace petname::train
