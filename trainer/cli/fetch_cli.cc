#include "trainer/cli/fetch_cli.h"

#include <cstdio>

#include "common/file_util.h"
#include "common/url.h"

namespace petname::cli {

CLI::App* AddFetchCommand(CLI::App* app, FetchFlags* flags) {
  fetch::FetchOptions& o = flags->options;
  CLI::App* cmd = app->add_subcommand(
      "fetch", "Download a data file over http(s) and keep it only if its SHA-256 matches.");
  cmd->add_option("--url", o.url, "http:// or https:// URL of the file")->required();
  cmd->add_option("--sha256", o.sha256, "Expected SHA-256 of the file (64 hex digits)")->required();
  cmd->add_option("--output", o.output,
                  "Where the verified file goes (written beside it first, then renamed)")
      ->required();
  cmd->add_option("--max-bytes", o.max_bytes, "Refuse a larger file")->capture_default_str();
  cmd->add_option("--retries", o.retries,
                  "Further attempts after a connection error, timeout or HTTP 5xx")
      ->capture_default_str();
  cmd->add_option("--timeout", o.timeout_seconds,
                  "Seconds to connect, and the longest the transfer may run below " +
                      std::to_string(fetch::kLowSpeedBytesPerSecond) +
                      " bytes/s before the attempt is aborted")
      ->capture_default_str();
  cmd->add_option("--deadline", o.deadline_seconds,
                  "Seconds for the whole fetch, every attempt and the waits between them: a "
                  "server that trickles its bytes cannot hold it longer")
      ->capture_default_str();
  cmd->add_option("--ca-file", o.ca_file,
                  "PEM file of CAs to trust besides the system's (verification is always on)");
  cmd->add_option("--termination-log", flags->termination_log,
                  "On failure, also write the error line here (the container's "
                  "terminationMessagePath under the operator)");
  return cmd;
}

Status RunFetchCommand(FetchFlags flags) {
  Status st = fetch::CheckFetchOptions(&flags.options);
  int64_t bytes = 0;
  if (st.ok()) st = fetch::Fetch(flags.options, &bytes);
  if (!st.ok()) {
    // Best effort: the error line on stderr is what counts when this file cannot be written.
    if (!flags.termination_log.empty()) {
      WriteFile(flags.termination_log, "petname: error: " + st.message() + "\n");
    }
    return st;
  }
  std::printf("fetched %s: %lld bytes, sha256 %s, into %s\n", RedactUrl(flags.options.url).c_str(),
              static_cast<long long>(bytes), flags.options.sha256.c_str(),
              flags.options.output.c_str());
  return Status::Ok();
}

}  // namespace petname::cli
