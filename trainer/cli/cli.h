// The `petname` command line: flags (CLI11), environment defaults, messages and exit codes.
// This is the only module that knows about flags.
//
//   petname train [--data PATH] [--column NAME] [--epochs N] ... (see --help)
//   petname generate --checkpoint DIR|FILE [--count N] [--temperature T] ...
//
// Exit codes: 0 success; 2 usage error (bad flag or value, unusable input data); 1 runtime
// error (I/O, corrupt or incompatible checkpoint, training failure). Every failure prints
// exactly one line on stderr: "petname: error: <what went wrong>".
#pragma once

namespace petname::cli {

int Main(int argc, char** argv);

}  // namespace petname::cli
