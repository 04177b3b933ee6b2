// What `petname sweep` prints on stdout: a line when a trial starts and when it ends, and the
// table of every trial (phase, epochs, best validation loss and accuracy, samples/s, wall and
// time-to-goal seconds, parameters) with the best one when the sweep ends. Each line is flushed.
#pragma once

#include <cstdio>
#include <string>

#include "common/sweep/trials.h"
#include "trainer/sweep/sweep_status.h"

namespace petname::sweep {

// `gpus`: the trial's CUDA_VISIBLE_DEVICES, "" for a CPU trial; `log`: its train.log.
void PrintTrialStarted(const std::string& name, const Assignment& assignment, int ranks,
                       const std::string& gpus, const std::string& log);
// With the best value of the objective's metric.
void PrintTrialEnded(const Trial& trial, const Objective& objective);
void PrintSweepTable(const SweepStatus& status);

}  // namespace petname::sweep
