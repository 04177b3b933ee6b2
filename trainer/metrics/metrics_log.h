// metrics.jsonl: one JSON object per completed epoch, appended by rank 0 to the checkpoint
// directory, read back by `petname report`. Example line:
//
//   {"epoch":1,"train_loss":2.05,"validation_loss":1.85,"validation_accuracy":0.52,
//    "elapsed_seconds":78.1,"timestamp":1795312345.2,"samples":1048576,
//    "samples_per_second":4480.5,"learning_rate":0.001,"world_size":2,"restarts":0}
//
// A value that was not measured (no validation set) or is not finite is written as null
// and read back as NaN. Readers ignore keys they do not know.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::metrics {

struct EpochRecord {
  int epoch = 0;                   // 1-based number of the completed epoch
  double train_loss = 0;           // mean training loss of the epoch
  double validation_loss = 0;      // NaN when not measured
  double validation_accuracy = 0;  // NaN when not measured
  double elapsed_seconds = 0;      // training wall time since the job started, across resumes
  double timestamp = 0;            // Unix time the epoch ended
  int64_t samples = 0;             // samples trained in the epoch, all ranks
  double samples_per_second = 0;   // all ranks
  double learning_rate = 0;
  int world_size = 1;
  int restarts = 0;  // times the job had resumed from a checkpoint when this epoch ended
};

// The file name inside the checkpoint directory.
inline constexpr char kMetricsLogName[] = "metrics.jsonl";

// One line of JSON, without the trailing newline.
std::string ToJsonLine(const EpochRecord& record);

// Parses a whole metrics.jsonl text; blank lines are skipped. A malformed line yields
// kCorruption naming its line number.
Status ParseMetricsLog(const std::string& text, std::vector<EpochRecord>* out);

// Appends `record` to the metrics.jsonl at `path`, creating it if needed. The file is
// rewritten atomically (temp, fsync, rename), so a crash leaves the old or the new file,
// never a torn line.
Status AppendEpochRecord(const std::string& path, const EpochRecord& record);

// Reads and parses the metrics.jsonl at `path`: a regular file of at most 256 MiB, not a
// symlink (common/untrusted_file.h; InvalidArgument for anything else).
Status ReadMetricsLog(const std::string& path, std::vector<EpochRecord>* out);

// What a run that resumes after `resumed_epoch` carries over from the metrics.jsonl at
// `path`: the training wall time and restart count of the last record of an epoch up to
// `resumed_epoch`, the count plus one for this resume. A missing file or no such record
// gives 0 seconds and 1 restart.
struct CarriedOver {
  double elapsed_seconds = 0;
  int restarts = 0;
};
Status CarryOverOnResume(const std::string& path, int resumed_epoch, CarriedOver* out);

}  // namespace petname::metrics
