// How a checkpoint that could not be written is reported. The training loop does not stop
// for it (the previous checkpoint stays valid); it prints DescribeWriteFailure as one warning
// line and counts petname_checkpoint_failures_total{reason=WriteFailureReason(...)}.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace petname::checkpoint {

// The metric label of a failed write: one of common/metrics/names.h's
// kCheckpointFailureReasons.
const char* WriteFailureReason(const Status& st);

// One line, e.g. "checkpoint epoch 3 not saved (no_space, ENOSPC): cannot write
// /x/.staging-epoch-000003-Ab12Cd/model.pt: No space left on device; keeping
// /x/epoch-000002" (or "; no earlier checkpoint in /x"). `root` is the checkpoint directory.
std::string DescribeWriteFailure(int64_t epoch, const std::string& root, const Status& st);

}  // namespace petname::checkpoint
