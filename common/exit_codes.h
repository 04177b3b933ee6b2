// Exit codes of `petname train` that the operator acts on (operator/jobs/pod_failure.h),
// besides 0 (success), 1 (runtime error) and 2 (usage error). A rank stopped by SIGTERM exits
// 143 (trainer/distributed/stop_signal.h), like a process killed by that signal.
#pragma once

namespace petname {

// The checkpoint directory cannot be written at start-up (read-only volume, a path under a
// regular file, no permission, ...): the trainer fails before loading data or training, with
// one stderr line naming the directory and the OS error. Restarting the same pod spec cannot
// fix it, so the operator does not retry it under any restart policy. 73 is sysexits.h's
// EX_CANTCREAT.
inline constexpr int kExitCheckpointDirUnusable = 73;

}  // namespace petname
