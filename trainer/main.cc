// The `petname` executable: see trainer/cli/cli.h. An exception that escapes every module (a
// bug, std::bad_alloc) is still one "petname: error: ..." line and exit 1, never an abort.
#include <cstdio>
#include <exception>
#include <string>

#include "trainer/cli/cli.h"

namespace {

// Prints the first line of `what` as the one error line.
int Uncaught(const std::string& what) {
  const std::string line = what.substr(0, what.find_first_of("\r\n"));
  std::fprintf(stderr, "petname: error: %s\n", line.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return petname::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    return Uncaught(e.what());
  } catch (...) {
    return Uncaught("unexpected exception");
  }
}
