// How OpenMP's idle threads wait in `petname train`. Pure (no LibTorch, no I/O but getenv).
//
// Between parallel regions libgomp's worker threads spin before they sleep: by default up to
// GOMP_SPINCOUNT = 300,000 iterations, some milliseconds, at every barrier. On cores of their own
// that saves a wake-up; on cores another process keeps busy (a neighbour pod on a shared node)
// the spinning threads take the time slices the working threads need, and training slows down by
// an order of magnitude. So `petname train` runs with OMP_WAIT_POLICY=PASSIVE (waiting threads
// sleep at once) unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, which always win.
//
// libgomp reads both variables once, in its library constructor (initialize_env in env.c), which
// the dynamic loader runs before main(): petname loads libgomp through LibTorch and OpenBLAS, so a
// setenv() in main() comes too late. (Checked with libgomp 12: a program that sets
// OMP_WAIT_POLICY=PASSIVE in main() still reports GOMP_SPINCOUNT = '300000' from
// omp_display_env(1); after it re-executes itself, the new image reports '0'.) main.cc therefore
// sets the variables and re-executes the binary (/proc/self/exe, same argv) before anything
// else; the new image finds them set, so it runs once more at most. Ranks of `--nproc N` and the
// trials of `petname sweep` (child processes of `petname train`) inherit the variables, and the
// operator's pods run `petname train`, so all of them wait passively, and a user's
// OMP_WAIT_POLICY or GOMP_SPINCOUNT (a pod's spec.env included) reaches every one of them.
#pragma once

#include <string>

namespace petname::launch {

// The value petname gives OMP_WAIT_POLICY, and the variable that says petname gave it ("1").
inline constexpr char kPetnameWaitPolicy[] = "PASSIVE";
inline constexpr char kWaitPolicyMarker[] = "PETNAME_CHOSE_OMP_WAIT_POLICY";

enum class WaitPolicyOrigin {
  kUnset,    // neither variable: the runtime's default (spinning); main.cc sets the policy
             // (kPetnameWaitPolicy and kWaitPolicyMarker) and re-executes petname
  kPetname,  // as petname set it: the marker, OMP_WAIT_POLICY=PASSIVE and no GOMP_SPINCOUNT
  kUser,     // the user's OMP_WAIT_POLICY and/or GOMP_SPINCOUNT: left as they are
};

struct WaitPolicy {
  WaitPolicyOrigin origin = WaitPolicyOrigin::kUnset;
  // The labels of petname_omp_wait_policy_info. policy: "passive", the user's OMP_WAIT_POLICY in
  // lower case ("active"), "spin N" for GOMP_SPINCOUNT=N, both joined by ", " when both are
  // set, or "runtime default". source: "petname default", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
  // "OMP_WAIT_POLICY, GOMP_SPINCOUNT" or "none".
  std::string policy;
  std::string source;
  std::string why;  // "petname default", "OMP_WAIT_POLICY=ACTIVE", ... as set, or "... unset"

  // For the thread line, e.g. "OpenMP wait policy passive (petname default)".
  std::string Describe() const;
};

// From the values of OMP_WAIT_POLICY, GOMP_SPINCOUNT and kWaitPolicyMarker (nullptr when
// unset; leading and trailing spaces ignored; an empty value counts as unset):
//  - neither variable: kUnset;
//  - the marker set, OMP_WAIT_POLICY == kPetnameWaitPolicy and no GOMP_SPINCOUNT: kPetname;
//  - otherwise kUser, whatever the marker says (a user who changes a variable petname set
//    in a rank's environment gets that setting). The values are not checked: libgomp warns
//    about a bad one itself.
WaitPolicy ChooseWaitPolicy(const char* omp_wait_policy, const char* gomp_spincount,
                            const char* marker);

// ChooseWaitPolicy on this process's environment.
WaitPolicy ProcessWaitPolicy();

}  // namespace petname::launch
