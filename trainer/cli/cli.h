// The `petname` command line: flags (CLI11), environment defaults, messages and exit codes.
// This is the only module that knows about flags.
//
//   petname train [--data PATH] [--column NAME] [--epochs N] ... (see --help)
//   petname generate --checkpoint DIR|FILE [--count N] [--temperature T] ...
//   petname sweep --config FILE --dir DIR [--parallel K] [--data PATH]   (sweep_cli.h)
//   petname report --checkpoint DIR | --sweep DIR                        (sweep_cli.h)
//   petname fetch --url URL --sha256 HEX --output FILE                   (fetch_cli.h)
//   petname logs --checkpoint-dir DIR [--attempt A] [--rank R]           (logs_cli.h)
//
// Exit codes: 0 success; 2 usage error (bad flag or value, unusable input data); 1 runtime
// error (I/O, corrupt or incompatible checkpoint, training failure, the last epoch's checkpoint
// not written); 73 (common/exit_codes.h) the --checkpoint-dir cannot be written at start-up,
// checked on rank 0 before the data is loaded; 143 a rank stopped by SIGTERM (before training
// starts at once, see distributed/stop_signal.h). Every failure prints exactly one line on
// stderr: "petname: error: <what went wrong>", exceptions that escape every module included
// (main.cc). A checkpoint of an earlier epoch that cannot be written (disk full, ...) is one
// "petname: warning: checkpoint epoch N not saved ..." line and training goes on
// (trainer/checkpoint/write_failure.h).
#pragma once

namespace petname::cli {

int Main(int argc, char** argv);

}  // namespace petname::cli
