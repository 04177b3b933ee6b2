// The variable with which petname's launcher (`petname train --nproc`) and its operator mark
// an OMP_NUM_THREADS that they chose from the CPU budget rather than the user: "1" lets the
// rank use fewer threads while its threads wait for a CPU (trainer/train/thread_tuner.h). A
// user's own OMP_NUM_THREADS, like --threads, is a fixed count.
#pragma once

namespace petname {

inline constexpr char kAdaptiveThreadsEnv[] = "PETNAME_ADAPTIVE_THREADS";

}  // namespace petname
