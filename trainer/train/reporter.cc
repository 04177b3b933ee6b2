#include "trainer/train/reporter.h"

namespace petname::train {

Reporter::Reporter(ReporterOptions options, std::FILE* out, std::FILE* err)
    : options_(options), out_(out), err_(err) {}

void Reporter::ClearProgress() {
  if (!progress_shown_) return;
  std::fputs("\r\033[K", err_);
  progress_shown_ = false;
}

void Reporter::Note(const std::string& text) {
  if (options_.quiet) return;
  ClearProgress();
  std::fprintf(err_, "petname: %s\n", text.c_str());
}

void Reporter::Warning(const std::string& text) {
  if (options_.quiet) return;
  ClearProgress();
  std::fprintf(err_, "petname: warning: %s\n", text.c_str());
}

void Reporter::Progress(int64_t epoch, int64_t batch, int64_t batches, int64_t samples_done,
                        double seconds) {
  if (options_.quiet || !options_.live_progress) return;
  auto now = std::chrono::steady_clock::now();
  if (progress_shown_ && now - last_progress_ < std::chrono::milliseconds(250)) return;
  last_progress_ = now;
  progress_shown_ = true;
  std::fprintf(err_, "\r\033[Kepoch %lld  batch %lld/%lld  %.0f samples/s",
               static_cast<long long>(epoch), static_cast<long long>(batch),
               static_cast<long long>(batches), seconds > 0 ? samples_done / seconds : 0.0);
  std::fflush(err_);
}

void Reporter::Epoch(const EpochReport& r) {
  if (options_.quiet) return;
  ClearProgress();
  std::fprintf(out_,
               "epoch %lld/%lld  train_loss %.6f  val_loss %.6f  val_accuracy %.4f  "
               "samples/s %.0f  elapsed %.1fs\n",
               static_cast<long long>(r.epoch), static_cast<long long>(r.epochs), r.train_loss,
               r.val_loss, r.val_accuracy, r.samples_per_second, r.elapsed_seconds);
  std::fflush(out_);
}

}  // namespace petname::train
