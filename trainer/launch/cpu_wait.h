// How long this process's threads have waited for a CPU: the kernel's per-thread run delay
// (the second field of /proc/self/task/TID/schedstat, nanoseconds spent runnable but not
// running), summed over the threads alive now. A thread that waits for a CPU is one that
// other processes (or more of our own threads than there are CPUs) keep off its core; the
// intra-op thread tuner (train/thread_tuner.h) reads the growth of this sum. And, before
// training, how many threads of other processes are runnable (/proc/stat's procs_running,
// which counts the whole machine, less this process's threads in state R).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace petname::launch {

// The run delay in nanoseconds of a schedstat line "CPU_NS DELAY_NS SLICES"; nullopt when
// malformed. Pure.
std::optional<int64_t> ParseRunDelay(const std::string& schedstat);

// The sum over this process's threads, in seconds; 0 where the kernel has no schedstat files
// (CONFIG_SCHED_INFO off), so that the sum never grows and nothing reads as waiting.
double ProcessCpuWaitSeconds();

// The procs_running count of /proc/stat's text; nullopt when it has none. Pure.
std::optional<int> ParseProcsRunning(const std::string& proc_stat);

// The state letter of a /proc/PID/task/TID/stat line ("42 (comm) R 1 ..."; the command may hold
// spaces and parentheses); '?' when malformed. Pure.
char ParseTaskState(const std::string& stat);

// Runnable threads of other processes: the smallest of `samples` readings, `gap` apart, so
// that a thread that runs for a moment is not counted; 0 when /proc/stat is unreadable.
int OtherRunnableThreads(int samples, std::chrono::milliseconds gap);

}  // namespace petname::launch
