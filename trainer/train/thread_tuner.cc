#include "trainer/train/thread_tuner.h"

#include <algorithm>

#include "common/number_format.h"

namespace petname::train {
namespace {

std::string Percent(double share) { return FixedDigits(share * 100, 0) + "%"; }

std::string Ratio(double r) { return FixedDigits(r, 2) + "x"; }

}  // namespace

int StartingThreads(int max_threads, int cpus, int others) {
  return std::clamp(cpus - others, 1, std::max(1, max_threads));
}

ThreadTuner::ThreadTuner(int max_threads, int start, const std::string& start_reason,
                         const ThreadTunerSettings& settings)
    : settings_(settings),
      max_(std::max(1, max_threads)),
      level_(start > 0 ? std::min(start, max_) : max_),
      up_interval_(settings.first_interval) {
  if (level_ < max_) {
    reason_ = start_reason;
    since_up_ = up_interval_;  // runnable is not waiting: a trial of more after the first window
  }
}

void ThreadTuner::Record(double seconds, int64_t rows, double cpu_wait_seconds,
                         const std::function<int()>& free_threads) {
  if (max_ == 1 || rows <= 0) return;
  if (trial_ > 0) {
    ++trial_done_;
    trial_seconds_ += seconds;
    trial_rows_ += rows;
    const double ratio = (trial_seconds_ / static_cast<double>(trial_rows_)) / row_seconds_;
    if (trial_done_ == 1 && ratio > settings_.abort) {
      EndTrial(false, ratio);
    } else if (trial_done_ >= settings_.trial_steps) {
      EndTrial(ratio < settings_.keep, ratio);
    }
    return;
  }
  ++since_up_;
  ++since_down_;
  ++window_steps_;
  window_seconds_ += seconds;
  window_rows_ += rows;
  window_wait_ += std::max(0.0, cpu_wait_seconds);
  if (window_steps_ >= settings_.window) EndWindow(free_threads);
}

void ThreadTuner::EndWindow(const std::function<int()>& free_threads) {
  row_seconds_ = window_seconds_ / static_cast<double>(window_rows_);
  const double wait_share =
      window_seconds_ > 0 ? window_wait_ / (window_seconds_ * static_cast<double>(level_)) : 0;
  window_steps_ = 0;
  window_seconds_ = 0;
  window_rows_ = 0;
  window_wait_ = 0;
  if (level_ > 1 && wait_share > settings_.wait_share && since_down_ >= down_interval_) {
    trial_ = std::max(1, level_ / 2);
    trial_wait_share_ = wait_share;
  } else if (level_ < max_ && wait_share <= settings_.wait_share && since_up_ >= up_interval_) {
    const int more = std::min(max_, level_ * 2);
    if (free_threads() < more) return;  // no room now: asked again after the next window
    trial_ = more;
  } else {
    return;
  }
  trial_done_ = 0;
  trial_seconds_ = 0;
  trial_rows_ = 0;
}

void ThreadTuner::EndTrial(bool won, double ratio) {
  const bool fewer = trial_ < level_;
  if (won) {
    reason_ = (fewer ? "the threads waited " + Percent(trial_wait_share_) + " of the time for a CPU"
                     : std::string("a trial of more threads")) +
              "; a row took " + Ratio(ratio) + " as long with " + std::to_string(trial_);
    level_ = trial_;
    up_interval_ = settings_.first_interval;
    down_interval_ = 0;
    since_up_ = 0;
    since_down_ = 0;
  } else if (fewer) {
    down_interval_ =
        std::clamp(down_interval_ * 2, settings_.first_interval, settings_.max_interval);
    since_down_ = 0;
  } else {
    up_interval_ = std::min(up_interval_ * 2, settings_.max_interval);
    since_up_ = 0;
  }
  trial_ = 0;
  row_seconds_ = 0;
}

}  // namespace petname::train
