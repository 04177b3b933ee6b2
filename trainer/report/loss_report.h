// `petname report`: the loss curves of a run as one SVG file, from the metrics.jsonl that
// rank 0 appends to the checkpoint directory. Two charts: training and validation loss
// against epoch, and validation loss against training wall time (time to accuracy).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::report {

// The records to plot, one per epoch in epoch order. When an epoch appears more than once
// (a job resumed from an earlier checkpoint and trained it again) the last record wins.
std::vector<metrics::EpochRecord> LatestPerEpoch(const std::vector<metrics::EpochRecord>& records);

// A complete standalone SVG document for `records` (which may be empty).
std::string RenderLossReport(const std::vector<metrics::EpochRecord>& records,
                             const std::string& title);

// Reads CHECKPOINT_DIR/metrics.jsonl and writes the SVG atomically to `output_path`.
// kNotFound when there is no metrics.jsonl, kCorruption when it does not parse,
// kFailedPrecondition when it holds no epochs.
Status WriteLossReport(const std::string& checkpoint_dir, const std::string& output_path);

}  // namespace petname::report
