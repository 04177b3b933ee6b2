// The `petname` executable: see trainer/cli/cli.h. SIGTERM is honoured from the first
// instruction (distributed/stop_signal.h), and an exception that escapes every module (a bug,
// std::bad_alloc) is still one "petname: error: ..." line and exit 1, never an abort.
// `petname train` then makes sure OpenMP's idle threads sleep instead of spinning, unless the
// user chose otherwise (launch/wait_policy.h).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "trainer/cli/cli.h"
#include "trainer/distributed/stop_signal.h"
#include "trainer/launch/wait_policy.h"

namespace {

// Prints the first line of `what` as the one error line.
int Uncaught(const std::string& what) {
  const std::string line = what.substr(0, what.find_first_of("\r\n"));
  std::fprintf(stderr, "petname: error: %s\n", line.c_str());
  return 1;
}

// For `petname train` with neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT set: sets
// OMP_WAIT_POLICY=PASSIVE and the marker, and re-executes this binary with the same argv, since
// libgomp read the variables before main() (launch/wait_policy.h). The new image finds them set
// and goes on. If the exec fails, the variables are removed again and one warning says that
// OpenMP keeps its default; training goes on.
void ReexecWithPassiveWaitPolicy(int argc, char** argv) {
  namespace launch = petname::launch;
  if (argc < 2 || std::strcmp(argv[1], "train") != 0) return;
  if (launch::ProcessWaitPolicy().origin != launch::WaitPolicyOrigin::kUnset) return;
  ::unsetenv("GOMP_SPINCOUNT");  // empty here: libgomp would call an empty value invalid
  if (::setenv("OMP_WAIT_POLICY", launch::kPetnameWaitPolicy, 1) == 0 &&
      ::setenv(launch::kWaitPolicyMarker, "1", 1) == 0) {
    ::execv("/proc/self/exe", argv);
  }
  const int error = errno;
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv(launch::kWaitPolicyMarker);
  std::fprintf(stderr,
               "petname: warning: cannot re-execute petname with OMP_WAIT_POLICY=%s (%s); OpenMP "
               "keeps its default wait policy\n",
               launch::kPetnameWaitPolicy, std::strerror(error));
}

}  // namespace

int main(int argc, char** argv) {
  petname::dist::InstallExitOnStop();
  ReexecWithPassiveWaitPolicy(argc, argv);
  try {
    return petname::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    return Uncaught(e.what());
  } catch (...) {
    return Uncaught("unexpected exception");
  }
}
