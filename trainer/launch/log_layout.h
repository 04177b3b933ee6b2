// Where each rank's log of each gang attempt is kept, and which attempts stay (pure).
//
// Under the log directory L (`petname train --log-dir`, default <checkpoint-dir>/logs):
//   L/attempt-<A>/rank-<R>.log         the first part of global rank R's output in attempt A
//   L/attempt-<A>/rank-<R>.tail.log    the newest part of what followed (log_cap.h)
//   L/attempt-<A>/rank-<R>.tail.1.log  the part before that
// A is the gang attempt: $PETNAME_ATTEMPT, which the operator sets to the job's status.restarts
// (0 for the first run, 1 after the first gang restart, ...). The newest kKeptAttempts attempts
// are kept; rank 0 removes older ones when an attempt starts.
#pragma once

#include <string>
#include <vector>

namespace petname::launch {

inline constexpr int kKeptAttempts = 10;
inline constexpr int kMaxAttempt = 1000000;

// "attempt-3"; ParseAttemptDirName takes only such names (A in 0..kMaxAttempt, no sign, no
// leading zeros).
std::string AttemptDirName(int attempt);
bool ParseAttemptDirName(const std::string& name, int* attempt);

// Rank R's files: "rank-R.log", "rank-R.tail.log" (older 0) and "rank-R.tail.1.log" (older 1).
// ParseRankLogName takes only the first kind.
std::string RankLogName(int rank);
std::string RankTailName(int rank, int older);
bool ParseRankLogName(const std::string& name, int* rank);

// The attempt a run takes when no PETNAME_ATTEMPT says: one more than the highest existing, 0
// when there is none.
int NextAttempt(const std::vector<int>& existing);

// The attempts to remove so that at most `keep` remain, `current` among them: the lowest numbers
// first, never `current`. Ascending.
std::vector<int> AttemptsToRemove(std::vector<int> existing, int current, int keep);

}  // namespace petname::launch
