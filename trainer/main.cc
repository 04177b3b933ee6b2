// The `petname` executable: see trainer/cli/cli.h.
#include "trainer/cli/cli.h"

int main(int argc, char** argv) { return petname::cli::Main(argc, argv); }
