// The operator's log lines: one line per record on stderr, as text or as JSON objects (for log
// pipelines), through spdlog's default logger.
//
// A ReconcileScope on the stack tags every line its thread logs with the job key and a reconcile
// id, so one reconcile's lines can be followed across workers:
//   text: 2026-11-22T05:50:00.123Z info  created pod j-rank-0 job=ns/j reconcileID=4f1c...
//   json: {"ts":"2026-11-22T05:50:00.123Z","level":"info","msg":"created pod j-rank-0",
//          "job":"ns/j","reconcileID":"4f1c..."}
// Messages are the callers' text; nothing here adds request headers or credentials.
#pragma once

#include <memory>
#include <string>

#include <spdlog/formatter.h>

#include "common/status.h"

namespace petname::logging {

enum class Format { kText, kJson };

// "text" or "json"; InvalidArgument otherwise.
Status ParseFormat(const std::string& name, Format* out);

// A spdlog formatter for `format` (used by Install; exposed for tests).
std::unique_ptr<spdlog::formatter> MakeFormatter(Format format);

// Makes a stderr logger with `format` and `level` ("trace" ... "error") the default logger.
void Install(Format format, const std::string& level);

// Tags the lines logged by this thread while it lives. Not nestable. A helper thread of a
// reconcile takes over its tags with ReconcileScope(Tags()) taken on the reconcile's thread.
class ReconcileScope {
 public:
  struct Tags {
    std::string key;
    std::string reconcile_id;
  };
  // The tags of the calling thread (empty outside a scope).
  static Tags Current();

  ReconcileScope(const std::string& key, const std::string& reconcile_id);
  explicit ReconcileScope(const Tags& tags) : ReconcileScope(tags.key, tags.reconcile_id) {}
  ~ReconcileScope();
  ReconcileScope(const ReconcileScope&) = delete;
  ReconcileScope& operator=(const ReconcileScope&) = delete;
};

// A random UUID (v4, text form): reconcile ids, leader-election identities.
std::string RandomUuid();

}  // namespace petname::logging
