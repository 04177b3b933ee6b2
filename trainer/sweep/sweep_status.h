// DIR/sweep.json of `petname sweep`: the sweep's state after every change, read back by a
// re-run (finished trials are kept) and by `petname report --sweep DIR`. Example:
//
//   {"name":"sweep-cpu-small","algorithm":"grid","phase":"Running","reason":"...",
//    "objective":{"metric":"validationLoss","goal":2.0},
//    "trials":[{"name":"sweep-cpu-small-000","parameters":{"replicas":1,...},
//               "phase":"Succeeded","epochs":2,"val_loss":1.98,"val_accuracy":0.41,
//               "samples_per_second":5100.2,"wall_seconds":31.5,"time_to_goal_seconds":27.1,
//               "wall_time_to_goal_seconds":29.9,"message":"","ranks":1,
//               "batch_size_per_rank":1024,
//               "points":[{"epoch":1,"training_seconds":14.0,"wall_seconds":15.2,
//                          "val_loss":2.1,"val_accuracy":0.38}, ...]}],
//    "best":"sweep-cpu-small-000","counts":{"trials":8,"pending":0,"running":2,...}}
//
// Unknown numbers are null. Pure: JSON in and out.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/sweep/trials.h"
#include "common/untrusted_file.h"

namespace petname::sweep {

struct TrialRecord {
  Trial trial;
  int ranks = 0;                    // 0: unknown
  int64_t batch_size_per_rank = 0;  // 0: unknown
  std::vector<EpochPoint> points;   // epoch order
};

struct SweepStatus {
  std::string name;
  std::string algorithm;  // "grid" | "random"; "" when unknown (a bare checkpoint volume)
  std::string phase;      // SweepPhaseName; "" when unknown
  std::string reason;
  Objective objective;
  std::vector<TrialRecord> trials;
  int best = -1;  // index into trials; -1: none
};

inline constexpr char kSweepStatusName[] = "sweep.json";

// How the sweep's own files (a trial's log, sweep.json) are read back: they live in a
// directory others may write to, so as untrusted files of at most 64 MiB.
UntrustedFileRules SweepFileRules();

nlohmann::json SweepStatusToJson(const SweepStatus& status);

// Reads what SweepStatusToJson writes. kCorruption names a field of the wrong type.
Status SweepStatusFromJson(const nlohmann::json& json, SweepStatus* out);

}  // namespace petname::sweep
