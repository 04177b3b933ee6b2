// The `petname fetch` subcommand (trainer/fetch/fetch.h):
//
//   petname fetch --url URL --sha256 HEX --output FILE [--max-bytes B] [--retries N]
//                 [--timeout SECONDS] [--deadline SECONDS] [--ca-file PEM]
//                 [--termination-log FILE]
//
// Exit 0 with FILE complete and verified; 2 for a usage error (a URL that is not http:// or
// https://, a --sha256 that is not 64 hex digits, ...); 1 when the download failed or its
// SHA-256 differs, FILE then untouched. The one error line also goes to --termination-log when
// given (the operator's fetch-data init container passes its terminationMessagePath), so the
// job's condition can name the failure.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "trainer/fetch/fetch.h"

namespace petname::cli {

struct FetchFlags {
  fetch::FetchOptions options;
  std::string termination_log;
};

CLI::App* AddFetchCommand(CLI::App* app, FetchFlags* flags);

Status RunFetchCommand(FetchFlags flags);

}  // namespace petname::cli
