// Everything the training loop tells the user goes through one Reporter: per-epoch lines
// on stdout, notes and warnings on stderr, and (only when stderr is a terminal) a live
// progress line that is overwritten in place. A quiet reporter (e.g. on a non-zero rank)
// prints nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace petname::train {

struct EpochReport {
  int64_t epoch = 0;
  int64_t epochs = 0;
  double train_loss = 0;
  double val_loss = 0;
  double val_accuracy = 0;
  double samples_per_second = 0;
  double elapsed_seconds = 0;  // since the run started
};

struct ReporterOptions {
  bool live_progress = false;  // usually isatty(stderr)
  bool quiet = false;
};

class Reporter {
 public:
  explicit Reporter(ReporterOptions options, std::FILE* out = stdout, std::FILE* err = stderr);

  // One line on stderr: "petname: <text>".
  void Note(const std::string& text);
  void Warning(const std::string& text);

  // The live progress line; throttled, so it is cheap to call every batch.
  void Progress(int64_t epoch, int64_t batch, int64_t batches, int64_t samples_done,
                double seconds);

  // The per-epoch line on stdout.
  void Epoch(const EpochReport& report);

 private:
  void ClearProgress();

  ReporterOptions options_;
  std::FILE* out_;
  std::FILE* err_;
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_;
};

}  // namespace petname::train
