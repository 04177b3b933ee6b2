// The `petname` executable: see trainer/cli/cli.h. SIGTERM is honoured from the first
// instruction (distributed/stop_signal.h), and an exception that escapes every module (a bug,
// std::bad_alloc) is still one "petname: error: ..." line and exit 1, never an abort.
#include <cstdio>
#include <exception>
#include <string>

#include "trainer/cli/cli.h"
#include "trainer/distributed/stop_signal.h"

namespace {

// Prints the first line of `what` as the one error line.
int Uncaught(const std::string& what) {
  const std::string line = what.substr(0, what.find_first_of("\r\n"));
  std::fprintf(stderr, "petname: error: %s\n", line.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  petname::dist::InstallExitOnStop();
  try {
    return petname::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    return Uncaught(e.what());
  } catch (...) {
    return Uncaught("unexpected exception");
  }
}
