// Fewer intra-op threads while other processes keep the CPUs busy, more once they are free
// again. Pure: the training loop feeds it each step's compute time and rows and how long the
// process's threads waited for a CPU meanwhile (launch/cpu_wait.h); it answers the thread count
// of the next step.
//
// An OpenMP parallel region ends when its slowest thread ends. Beside busy neighbours one of
// the threads is often off its core, and each of the step's many short regions waits for it:
// 2 threads on 2 shared cores train several times slower than 1. The tuner compares counts by
// measuring them, never by assumption:
//  - it starts with as many threads as there are CPUs that no other process's runnable thread
//    is waiting for (StartingThreads), the maximum on an idle machine; below the maximum, its
//    first window decides whether to try more (a runnable neighbour may be one that yields,
//    such as a niced build);
//  - while the threads do not wait for a CPU it changes nothing: on an idle machine the run
//    is the run of a fixed thread count, step for step;
//  - when, over a window of `window` steps, the threads waited for a CPU more than
//    `wait_share` of their time, it tries half the threads (a "trial") and keeps them when a
//    row took less than `keep` times what it took before;
//  - below the maximum, while its threads do not wait for a CPU and as many more threads fit
//    the CPUs that no other process's runnable thread wants (the caller's `free_threads`,
//    StartingThreads), it tries double the threads every `interval` steps, so that cores that
//    became free are used again (a trial of more threads beside busy neighbours is the costly
//    kind: one such step can take as long as 25 steps of fewer threads); the interval starts at
//    `first_interval` and doubles (up to `max_interval`) after each trial that lost, and so does
//    the wait before the next trial of half the threads;
//  - a trial runs `trial_steps` steps, and ends after its first when that step took more than
//    `abort` times the row time before.
// Thread counts change the order of floating-point sums: a run whose count changed is not the
// step-for-step twin of a fixed-count run (`petname train --threads N` fixes the count).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace petname::train {

struct ThreadTunerSettings {
  int window = 2;
  double wait_share = 0.15;
  int trial_steps = 2;
  double keep = 0.9;
  double abort = 1.25;
  int64_t first_interval = 32;
  int64_t max_interval = 1024;
};

// The threads to start with: the `cpus` of the affinity mask less the `others` runnable
// threads of other processes, between 1 and `max_threads`.
int StartingThreads(int max_threads, int cpus, int others);

class ThreadTuner {
 public:
  // Starts at `start` threads (the maximum when 0 or more), with `start_reason` for
  // reason() when that is fewer.
  ThreadTuner(int max_threads, int start = 0, const std::string& start_reason = "",
              const ThreadTunerSettings& settings = {});

  // Threads for the next step (a trial's count during a trial).
  int threads() const { return trial_ > 0 ? trial_ : level_; }
  // The count the tuner settled on: threads() outside trials.
  int level() const { return level_; }
  // Why level() last changed, e.g. "the threads waited 41% of the time for a CPU; a row
  // took 0.31x as long with 1"; empty while it is the maximum it started at.
  const std::string& reason() const { return reason_; }

  // The step that just ran with threads(): its compute seconds, rows, and the seconds the
  // process's threads spent waiting for a CPU during it (summed over threads).
  // `free_threads` answers StartingThreads for the CPUs now; it is called only when a trial of
  // more threads is otherwise due.
  void Record(double seconds, int64_t rows, double cpu_wait_seconds,
              const std::function<int()>& free_threads);

 private:
  void EndWindow(const std::function<int()>& free_threads);
  void EndTrial(bool won, double ratio);

  const ThreadTunerSettings settings_;
  const int max_;
  int level_;
  int trial_ = 0;  // the count on trial; 0: none
  // The window at level_.
  int window_steps_ = 0;
  double window_seconds_ = 0;
  int64_t window_rows_ = 0;
  double window_wait_ = 0;
  double row_seconds_ = 0;  // per row at level_, from the last full window; 0: none yet
  // The trial.
  int trial_done_ = 0;
  double trial_seconds_ = 0;
  int64_t trial_rows_ = 0;
  double trial_wait_share_ = 0;  // what started a trial of fewer threads
  // Steps since level_ changed or the last trial of each direction, and their intervals.
  int64_t since_up_ = 0;
  int64_t up_interval_;
  int64_t since_down_ = 0;
  int64_t down_interval_ = 0;
  std::string reason_;
};

}  // namespace petname::train
