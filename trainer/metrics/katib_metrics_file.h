// The metrics file Katib's File metrics collector reads with `fileFormat: JSON` (checked
// against kubeflow/katib v0.19.0, CollectObservationLog in
// pkg/metricscollector/v1beta1/file-metricscollector): one JSON object per line, every
// metric value a *string* (the collector reads jsonObj[name].(string) and skips numbers),
// and "timestamp" an RFC 3339 time (time.RFC3339Nano parses it). Example line:
//
//   {"elapsedSeconds":"78.5","epoch":"1","learningRate":"0.001","samplesPerSecond":"4480.5",
//    "timestamp":"2026-11-25T16:20:01.250Z","trainLoss":"2.05","validationAccuracy":"0.52",
//    "validationLoss":"1.85"}
//
// The metric names are the ones --goal and sweeps use (validationLoss, validationAccuracy).
// A value that was not measured (no validation set) or is not finite is left out: Katib
// then records no observation of it. Katib mounts an emptyDir at the file's directory, so
// the file must not live in the checkpoint directory (metrics.jsonl stays there, unchanged).
#pragma once

#include <string>

#include "common/status.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::metrics {

// One line, without the trailing newline.
std::string ToKatibJsonLine(const EpochRecord& record);

// Refuses (kInvalidArgument) a metrics file whose directory is `checkpoint_dir`: the emptyDir
// Katib mounts there would hide the checkpoints and lose them with the pod.
Status CheckKatibMetricsPath(const std::string& path, const std::string& checkpoint_dir);

// Creates the file at `path` if it does not exist (an existing one is kept: a container
// restarted in the same pod appends to it), so a path that cannot be written fails before
// training. A symbolic link at `path` is not followed and anything but a regular file there
// (a FIFO would block the open, a device take the lines) is refused: kInvalidArgument, as
// for every append.
Status CreateKatibMetricsFile(const std::string& path);

// Appends `record` as one line with a single write() to a file opened O_APPEND, never
// renaming it: with early stopping Katib's collector follows the file as `tail -f` does.
Status AppendKatibMetrics(const std::string& path, const EpochRecord& record);

}  // namespace petname::metrics
