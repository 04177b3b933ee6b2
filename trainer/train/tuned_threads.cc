#include "trainer/train/tuned_threads.h"

#include <torch/torch.h>

#include <chrono>
#include <string>

#include "trainer/launch/cpu_budget.h"
#include "trainer/launch/cpu_wait.h"

namespace petname::train {
namespace {

ThreadTuner StartingTuner(int max_threads, int cpus) {
  if (max_threads <= 1) return ThreadTuner(1);
  const int others = launch::OtherRunnableThreads(5, std::chrono::milliseconds(10));
  return ThreadTuner(max_threads, StartingThreads(max_threads, cpus, others),
                     std::to_string(others) + " threads of other processes were runnable on " +
                         std::to_string(cpus) + " CPUs");
}

}  // namespace

TunedThreads::TunedThreads(int max_threads, RunRecorder* recorder, Reporter* reporter)
    : max_(max_threads),
      cpus_(launch::ReadCpuBudget().affinity_cpus),
      recorder_(recorder),
      reporter_(reporter),
      tuner_(StartingTuner(max_, cpus_)) {
  Apply(max_);
}

void TunedThreads::BeginEpoch() {
  if (max_ > 1) cpu_wait_ = launch::ProcessCpuWaitSeconds();
}

void TunedThreads::AfterStep(double seconds, int64_t rows) {
  if (max_ <= 1) return;
  const double now = launch::ProcessCpuWaitSeconds();
  const int settled = tuner_.level();
  tuner_.Record(seconds, rows, now - cpu_wait_, [this] {
    return StartingThreads(max_, cpus_,
                           launch::OtherRunnableThreads(1, std::chrono::milliseconds(0)));
  });
  cpu_wait_ = now;
  Apply(settled);
}

void TunedThreads::Apply(int settled_before) {
  if (max_ <= 1) return;
  if (tuner_.threads() != at::get_num_threads()) torch::set_num_threads(tuner_.threads());
  if (tuner_.level() == settled_before) return;
  reporter_->Note("threads: " + std::to_string(settled_before) + " -> " +
                  std::to_string(tuner_.level()) + " intra-op: " + tuner_.reason());
  recorder_->Threads(tuner_.level());
}

}  // namespace petname::train
