#include "operator/progress/trainer_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/metrics/names.h"
#include "operator/kube/time.h"

namespace petname::progress {
namespace {

double Get(const std::map<std::string, double>& m, const char* name, double fallback) {
  auto it = m.find(name);
  return it == m.end() ? fallback : it->second;
}

std::optional<double> Finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The largest whole number a double holds exactly.
constexpr double kMaxCount = 9007199254740992.0;  // 2^53

// `v` as a whole count, `fallback` when it is not finite or outside [0, 2^53] (a cast of such a
// double to int64_t is undefined).
int64_t Count(double v, int64_t fallback) {
  return std::isfinite(v) && v >= 0 && v <= kMaxCount ? static_cast<int64_t>(v) : fallback;
}

// `v` as Unix seconds, 0 (none) when it is not finite or outside (0, the year 9999].
double Timestamp(double v) {
  return std::isfinite(v) && v > 0 && v <= static_cast<double>(kube::kMaxUnixSeconds) ? v : 0;
}

// The position of the '}' closing the label set that opens at `open`, skipping quoted values
// (which may hold '}' and escaped quotes); npos when unterminated.
size_t LabelsEnd(const std::string& line, size_t open) {
  bool quoted = false;
  for (size_t i = open + 1; i < line.size(); ++i) {
    if (quoted && line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      quoted = !quoted;
    } else if (!quoted && line[i] == '}') {
      return i;
    }
  }
  return std::string::npos;
}

// Calls fn(name, value) for every well-formed sample line of an exposition, in order.
template <typename Fn>
void ForEachSample(const std::string& text, Fn fn) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string::npos || name_end == 0) continue;
    size_t value_start = name_end;
    if (line[name_end] == '{') {
      size_t close = LabelsEnd(line, name_end);
      if (close == std::string::npos) continue;
      value_start = close + 1;
    }
    const char* begin = line.c_str() + value_start;
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (end == begin) continue;
    fn(line.substr(0, name_end), v);
  }
}

}  // namespace

std::map<std::string, double> ParseExposition(const std::string& text) {
  std::map<std::string, double> out;
  ForEachSample(text, [&out](const std::string& name, double v) {
    out.emplace(name, v);  // first sample wins
  });
  return out;
}

double SumOfSeries(const std::string& text, const std::string& name) {
  double sum = 0;
  ForEachSample(text, [&](const std::string& n, double v) {
    if (n == name) sum += v;
  });
  return sum;
}

Sample SampleFromExposition(const std::string& text) {
  std::map<std::string, double> m = ParseExposition(text);
  Sample s;
  if (m.count(metrics::kEpochsPlanned) == 0) return s;
  s.valid = true;
  s.epochs = Count(Get(m, metrics::kEpochsPlanned, 0), 0);
  s.epoch = Count(Get(m, metrics::kEpoch, 0), 0);
  s.train_loss =
      s.epoch > 0 ? Get(m, metrics::kTrainEpochLoss, NAN) : Get(m, metrics::kTrainLoss, NAN);
  if (s.epoch > 0) {
    s.validation_loss = Get(m, metrics::kValidationLoss, -1);
    s.validation_accuracy = Get(m, metrics::kValidationAccuracy, -1);
  }
  s.samples_total = Get(m, metrics::kTrainSamplesTotal, 0);
  s.world_size = std::max<int64_t>(1, Count(Get(m, metrics::kWorldSize, 1), 1));
  s.checkpoint_unix = Timestamp(Get(m, metrics::kCheckpointLastSuccessTimestampSeconds, 0));
  s.checkpoint_failures =
      static_cast<double>(Count(SumOfSeries(text, metrics::kCheckpointFailuresTotal), 0));
  s.goal_training_seconds = Get(m, metrics::kGoalReachedTrainingSeconds, -1);
  s.goal_unix = Timestamp(Get(m, metrics::kGoalReachedTimestampSeconds, 0));
  return s;
}

api::Progress ProgressFromSample(const Sample& now, const Sample* prev, double seconds_between) {
  api::Progress p;
  p.epoch = std::max<int64_t>(0, now.epoch);
  p.epochs = std::max<int64_t>(0, now.epochs);
  if (now.train_loss > 0) p.train_loss = Finite(now.train_loss);
  if (now.validation_loss >= 0) p.validation_loss = Finite(now.validation_loss);
  if (now.validation_accuracy >= 0 && now.validation_accuracy <= 1) {
    p.validation_accuracy = Finite(now.validation_accuracy);
  }
  if (prev != nullptr && seconds_between > 0 && now.samples_total >= prev->samples_total) {
    double rate = (now.samples_total - prev->samples_total) / seconds_between *
                  static_cast<double>(now.world_size);
    // Whole samples per second: sub-unit jitter would rewrite the status for nothing.
    p.samples_per_second = Finite(std::round(rate));
  }
  const double checkpoint_unix = Timestamp(now.checkpoint_unix);
  if (checkpoint_unix > 0) p.last_checkpoint_time = static_cast<int64_t>(checkpoint_unix);
  const int64_t checkpoint_failures = Count(now.checkpoint_failures, 0);
  if (checkpoint_failures >= 1) p.checkpoint_failures = checkpoint_failures;
  if (now.goal_training_seconds >= 0)
    p.goal_reached_training_seconds = Finite(now.goal_training_seconds);
  const double goal_unix = Timestamp(now.goal_unix);
  if (goal_unix > 0) p.goal_reached_time = static_cast<int64_t>(goal_unix);
  return p;
}

std::optional<api::Progress> FinalProgress(const std::string& message,
                                           const std::optional<api::Progress>& scraped) {
  const Sample sample = SampleFromExposition(message);
  if (!sample.valid) return std::nullopt;
  api::Progress p = ProgressFromSample(sample, nullptr, 0);
  if (scraped) p.samples_per_second = scraped->samples_per_second;
  return p;
}

}  // namespace petname::progress
