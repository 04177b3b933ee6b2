#include "trainer/sweep/sweep_console.h"

#include "common/number_format.h"
#include "common/sweep/expand.h"

namespace petname::sweep {

void PrintTrialStarted(const std::string& name, const Assignment& assignment, int ranks,
                       const std::string& gpus, const std::string& log) {
  const std::string on = gpus.empty() ? "" : ", CUDA_VISIBLE_DEVICES=" + gpus;
  std::printf("trial %s started: %s (%d rank%s%s, log %s)\n", name.c_str(),
              DescribeAssignment(assignment).c_str(), ranks, ranks == 1 ? "" : "s", on.c_str(),
              log.c_str());
  std::fflush(stdout);
}

void PrintTrialEnded(const Trial& t, const Objective& objective) {
  std::printf("trial %s %s: %d epochs, best %s %s, %s s%s%s\n", t.name.c_str(),
              TrialPhaseName(t.phase), t.epochs, MetricName(objective.metric),
              FixedDigits(objective.metric == Metric::kValidationLoss ? t.best_validation_loss
                                                                      : t.best_validation_accuracy,
                          4)
                  .c_str(),
              FixedDigits(t.wall_seconds, 1).c_str(), t.message.empty() ? "" : "; ",
              t.message.c_str());
  std::fflush(stdout);
}

void PrintSweepTable(const SweepStatus& status) {
  std::printf("\n%-24s %-10s %6s %9s %9s %10s %9s %10s  %s\n", "trial", "phase", "epochs",
              "val_loss", "val_acc", "samples/s", "wall_s", "to_goal_s", "parameters");
  for (const TrialRecord& r : status.trials) {
    const Trial& t = r.trial;
    std::printf(
        "%-24s %-10s %6d %9s %9s %10s %9s %10s  %s\n", t.name.c_str(), TrialPhaseName(t.phase),
        t.epochs, FixedDigits(t.best_validation_loss, 4).c_str(),
        FixedDigits(t.best_validation_accuracy, 4).c_str(),
        FixedDigits(t.samples_per_second, 0).c_str(), FixedDigits(t.wall_seconds, 1).c_str(),
        FixedDigits(t.time_to_goal_seconds, 1).c_str(), DescribeAssignment(t.parameters).c_str());
  }
  std::printf("best: %s\n",
              status.best >= 0 ? status.trials[status.best].trial.name.c_str() : "none");
}

}  // namespace petname::sweep
