// Training progress read from a rank's /metrics exposition (the trainer's metric names,
// common/metrics/names.h), and its status.progress form.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "operator/api/job_status.h"

namespace petname::progress {

// The unlabelled-or-first sample of every metric in a Prometheus text exposition, by name.
// Comment lines and malformed lines are skipped; values may be NaN or +-Inf.
std::map<std::string, double> ParseExposition(const std::string& text);

// The sum of every sample of metric `name` whatever its labels (a counter split by a label).
double SumOfSeries(const std::string& text, const std::string& name);

struct Sample {
  bool valid = false;  // false when the text carries no petname_epochs_planned
  int64_t epoch = 0;
  int64_t epochs = 0;
  double train_loss = 0;        // last epoch's mean loss; the last step's before epoch 1
  double validation_loss = -1;  // < 0: none yet
  double validation_accuracy = -1;
  double samples_total = 0;  // this rank's counter
  int64_t world_size = 1;
  double checkpoint_unix = 0;         // 0: none yet
  double checkpoint_failures = 0;     // checkpoint saves that failed, every reason
  double goal_training_seconds = -1;  // < 0: goal not reached (or none)
  double goal_unix = 0;               // 0: goal not reached
};

// Whatever the text says, counts and epochs are whole numbers in [0, 2^53] (0 when a value is
// not finite or out of that range; world_size then 1) and timestamps in (0, the year 9999]
// (0 otherwise), so that no conversion or later time arithmetic overflows.
Sample SampleFromExposition(const std::string& text);

// status.progress from `now` and the previous scrape (`prev`, seconds apart; the throughput of
// all ranks is this rank's sample rate times the world size, omitted without a previous scrape
// or after a counter reset). Non-finite values are left out, and so are counts and timestamps
// out of SampleFromExposition's ranges. updateTime is not set here.
api::Progress ProgressFromSample(const Sample& now, const Sample* prev, double seconds_between);

// The progress in the termination message rank 0 leaves when training ends (`petname train
// --termination-log`, the progress series in the text format), keeping the samples per second
// of `scraped`, which a single sample cannot give. nullopt when `message` holds no progress
// (a failure's log lines, or nothing).
std::optional<api::Progress> FinalProgress(const std::string& message,
                                           const std::optional<api::Progress>& scraped);

}  // namespace petname::progress
