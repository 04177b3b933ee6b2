// Keeps a copy of this process's own output in its rank log (rank_log.h), for `petname train`.
//
// StartLogTee replaces descriptors 1 and 2 with pipes and starts one thread that reads both
// (all signals blocked in it): each line (log_cap.h's LogLines) is first written to the log,
// then to the original stdout or stderr, so any line a reader of the original streams has seen
// is already in the file, whatever happens to the process afterwards. stdout becomes line
// buffered, as it is on a terminal. At exit (atexit) stdio is flushed, the original
// descriptors are put back, the thread drains both pipes and ends. A process that ends without
// exit handlers (_exit, a signal) loses only the bytes its thread has not read yet. A log that
// fails to write (disk full) stops, with one "petname: warning:" line on the original stderr;
// the output itself is never held back.
#pragma once

#include <memory>

#include "common/status.h"
#include "trainer/launch/rank_log.h"

namespace petname::launch {

// At most once per process. IoError when a pipe or the thread cannot be made (then nothing
// was changed).
Status StartLogTee(std::unique_ptr<RankLog> log, size_t max_line);

}  // namespace petname::launch
