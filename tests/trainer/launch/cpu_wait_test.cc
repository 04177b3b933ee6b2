// The run delay of this process's threads and the runnable threads of others
// (launch/cpu_wait.h): the parsers, real threads sharing one CPU, a real busy process.
#include "trainer/launch/cpu_wait.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace petname::launch {
namespace {

TEST(CpuWaitTest, ParsesTheSecondField) {
  EXPECT_EQ(ParseRunDelay("2319813 4711 12\n"), 4711);
  EXPECT_EQ(ParseRunDelay("0 0 0"), 0);
  EXPECT_EQ(ParseRunDelay("5 6"), 6);
  for (const char* bad : {"", "5", "5 ", "x 6 7", "5 x 7", "5 -6 7", "5 6x 7"}) {
    EXPECT_EQ(ParseRunDelay(bad), std::nullopt) << bad;
  }
}

TEST(CpuWaitTest, ThreadsSharingOneCpuWait) {
  if (access("/proc/self/schedstat", R_OK) != 0) GTEST_SKIP() << "no schedstat in this kernel";
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mask)) ++cpu;
  const double before = ProcessCpuWaitSeconds();
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (int i = 0; i < 3; ++i) {
    spinners.emplace_back([&stop, cpu] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const double during = ProcessCpuWaitSeconds();  // while the spinners are alive
  stop = true;
  for (std::thread& t : spinners) t.join();
  // Three threads on one CPU for 0.4 s: together they waited about 0.8 s.
  EXPECT_GT(during - before, 0.2);
}

TEST(CpuWaitTest, ParsesProcsRunningAndTheTaskState) {
  EXPECT_EQ(ParseProcsRunning("cpu  1 2 3\nctxt 9\nprocs_running 3\nprocs_blocked 0\n"), 3);
  EXPECT_EQ(ParseProcsRunning("cpu 1\nprocs_running 12"), 12);
  for (const char* bad : {"", "procs_running 3\n", "cpu 1\nprocs_running x\n",
                          "cpu 1\nprocs_running -1\n", "cpu 1\nprocs_running 3x\n"}) {
    EXPECT_EQ(ParseProcsRunning(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(ParseTaskState("42 (petname) R 1 42 42 0"), 'R');
  EXPECT_EQ(ParseTaskState("42 (a (b) c) S 1 42"), 'S');
  EXPECT_EQ(ParseTaskState("42 (x)"), '?');
  EXPECT_EQ(ParseTaskState("no parenthesis"), '?');
}

TEST(CpuWaitTest, ABusyProcessIsAnotherRunnableThread) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (;;) {
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int others = OtherRunnableThreads(5, std::chrono::milliseconds(5));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_GE(others, 1);
}

}  // namespace
}  // namespace petname::launch
