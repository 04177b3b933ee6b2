// The intra-op thread tuner (train/thread_tuner.h) on simulated machines: each step's time and
// CPU wait are functions of the thread count it ran with.
#include "trainer/train/thread_tuner.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace petname::train {
namespace {

constexpr int64_t kRows = 256;

// Seconds a step takes with N threads, the seconds its threads wait for a CPU, and the threads
// that fit the CPUs no other process's runnable thread wants (StartingThreads).
struct Machine {
  std::function<double(int)> seconds;
  std::function<double(int)> wait;
  int free_threads = 2;
};

// The thread count of each of `steps` steps.
std::vector<int> Simulate(ThreadTuner* tuner, const Machine& m, int steps) {
  std::vector<int> counts;
  for (int i = 0; i < steps; ++i) {
    const int n = tuner->threads();
    counts.push_back(n);
    tuner->Record(m.seconds(n), kRows, m.wait(n), [&m] { return m.free_threads; });
  }
  return counts;
}

int StepsWith(const std::vector<int>& counts, int n) {
  int k = 0;
  for (int c : counts) k += c == n ? 1 : 0;
  return k;
}

// Idle: 2 threads are faster and never wait.
const Machine kIdle{[](int n) { return n == 2 ? 0.010 : 0.017; }, [](int) { return 0.0; }};
// Two busy neighbours on 2 cores: 2 threads wait half their time and are 4x slower than 1.
const Machine kBusy{[](int n) { return n == 2 ? 0.070 : 0.017; },
                    [](int n) { return n == 2 ? 0.070 : 0.003; }, 1};
// Waiting, yet 2 threads are still faster than 1.
const Machine kMild{[](int n) { return n == 2 ? 0.010 : 0.016; },
                    [](int n) { return n == 2 ? 0.006 : 0.002; }};

TEST(ThreadTunerTest, ThreadsThatDoNotWaitAreNeverChanged) {
  ThreadTuner tuner(2);
  EXPECT_EQ(StepsWith(Simulate(&tuner, kIdle, 5000), 2), 5000);
  EXPECT_EQ(tuner.level(), 2);
  EXPECT_EQ(tuner.reason(), "");
}

TEST(ThreadTunerTest, OneThreadNeverChanges) {
  ThreadTuner tuner(1);
  EXPECT_EQ(StepsWith(Simulate(&tuner, kBusy, 100), 1), 100);
}

TEST(ThreadTunerTest, WaitingThreadsGiveWayToHalfAsManyWhenThoseAreFaster) {
  ThreadTuner tuner(2);
  const std::vector<int> counts = Simulate(&tuner, kBusy, 4);
  EXPECT_EQ(counts, (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(tuner.level(), 1);
  EXPECT_EQ(tuner.reason(),
            "the threads waited 50% of the time for a CPU; a row took 0.24x as long with 1");
}

TEST(ThreadTunerTest, NoTrialOfMoreThreadsWhileTheFewerWait) {
  Machine waiting = kBusy;
  waiting.free_threads = 2;  // e.g. neighbours in another PID namespace's view
  ThreadTuner tuner(2);
  const std::vector<int> counts = Simulate(&tuner, waiting, 5000);
  EXPECT_EQ(tuner.level(), 1);
  EXPECT_EQ(StepsWith(counts, 2), 2);  // the first window
}

TEST(ThreadTunerTest, NoTrialOfMoreThreadsWithoutFreeCpus) {
  // One busy neighbour on 2 cores: 1 thread has a core to itself and does not wait; 2 wait
  // and are 4x slower.
  Machine one_busy{[](int n) { return n == 2 ? 0.070 : 0.017; },
                   [](int n) { return n == 2 ? 0.070 : 0.0; }, 1};
  ThreadTuner tuner(2);
  EXPECT_EQ(StepsWith(Simulate(&tuner, one_busy, 5000), 2), 2);
  // Where the neighbour cannot be seen, trials of 2 come after 32, 64, ..., 1024 steps at 1,
  // then every 1024, one step each.
  one_busy.free_threads = 2;
  ThreadTuner blind(2);
  const std::vector<int> counts = Simulate(&blind, one_busy, 5000);
  EXPECT_EQ(blind.level(), 1);
  EXPECT_LE(StepsWith(counts, 2), 2 + 9);
  EXPECT_GE(StepsWith(counts, 2), 2 + 5);
}

TEST(ThreadTunerTest, StartedLowUnderLoadItStaysLow) {
  ThreadTuner tuner(2, 1, "2 other runnable threads on 2 CPUs");
  EXPECT_EQ(StepsWith(Simulate(&tuner, kBusy, 1000), 2), 0);
}

TEST(ThreadTunerTest, StartsWithTheCpusNoOtherProcessWaitsFor) {
  EXPECT_EQ(StartingThreads(2, 2, 0), 2);
  EXPECT_EQ(StartingThreads(2, 2, 1), 1);
  EXPECT_EQ(StartingThreads(2, 2, 5), 1);
  EXPECT_EQ(StartingThreads(4, 64, 3), 4);
  EXPECT_EQ(StartingThreads(8, 8, 3), 5);
  EXPECT_EQ(StartingThreads(0, 8, 0), 1);
  ThreadTuner tuner(2, 1, "2 other runnable threads on 2 CPUs");
  EXPECT_EQ(tuner.threads(), 1);
  EXPECT_EQ(tuner.reason(), "2 other runnable threads on 2 CPUs");
  // The CPUs are free after all (the others yield): a trial of 2 after the first window.
  EXPECT_EQ(Simulate(&tuner, kIdle, 8), (std::vector<int>{1, 1, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(tuner.level(), 2);
  EXPECT_EQ(ThreadTuner(2, 2, "unused").reason(), "");
}

TEST(ThreadTunerTest, FreedCoresAreUsedAgain) {
  ThreadTuner tuner(2);
  Simulate(&tuner, kBusy, 100);
  ASSERT_EQ(tuner.level(), 1);
  const std::vector<int> counts = Simulate(&tuner, kIdle, 200);
  EXPECT_EQ(tuner.level(), 2);
  EXPECT_GE(StepsWith(counts, 2), 100);
  EXPECT_EQ(tuner.reason(), "a trial of more threads; a row took 0.59x as long with 2");
}

TEST(ThreadTunerTest, WaitingThreadsThatAreStillFasterStayAndTrialsBackOff) {
  ThreadTuner tuner(2);
  const std::vector<int> counts = Simulate(&tuner, kMild, 5000);
  EXPECT_EQ(tuner.level(), 2);
  // Half the threads are 1.6x slower: each trial ends after its first step, 32, 64, ...,
  // 1024 steps apart.
  EXPECT_LE(StepsWith(counts, 1), 10);
}

TEST(ThreadTunerTest, ManyThreadsHalveUntilTheyStopWaiting) {
  ThreadTuner tuner(8);
  // 8 and 4 threads wait and straggle; 2 threads fit the free cores.
  const Machine m{[](int n) { return n >= 4 ? 0.08 / (8.0 / n) : 0.010; },
                  [](int n) { return n >= 4 ? 0.02 * n : 0.0; }};
  Simulate(&tuner, m, 20);
  EXPECT_EQ(tuner.level(), 2);
}

TEST(ThreadTunerTest, EmptyStepsAreIgnored) {
  ThreadTuner tuner(2);
  for (int i = 0; i < 10; ++i) tuner.Record(1.0, 0, 1.0, [] { return 2; });
  EXPECT_EQ(tuner.threads(), 2);
}

}  // namespace
}  // namespace petname::train
