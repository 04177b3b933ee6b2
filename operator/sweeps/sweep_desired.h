// SweepDesired: what a PetNameTrainingSweep's controller should do, as a pure function of the
// sweep, the trial jobs observed (owned by the sweep, labelled petname.dev/sweep-name and
// petname.dev/trial-index) and the time (no server, no clock).
//
// Trials: sweep::ExpandTrials of the spec; trial i is the PetNameTrainingJob
// sweep::TrialName(sweep, i) with the labels app.kubernetes.io/name=petname,
// petname.dev/sweep-name=<sweep>, petname.dev/trial-index=<i>, a controller ownerReference to the
// sweep (deleting the sweep deletes its trials), and the spec sweep::ApplyAssignment(template),
// plus training.goal {metric, value, stop: stopTrialAtGoal} when the objective has a goal, and
// checkpoint.subPath = <template's subPath>/<trial name> (every trial mounts the template's volume
// at its checkpoint.path; one shared volume holds every trial's checkpoints, none shares a
// directory).
//
// Created: sweep::TrialsToStart, counting the trials created and unfinished (observed jobs and
// rows of the old status), so parallelTrialCount holds at every moment; trial names are
// deterministic, so a restarted operator never duplicates a trial (a create that meets 409 is
// fine). A Pending row of the old status without a job is created again (its create failed,
// or the cache lags and the create meets 409).
//
// Stopped (median stopping, sweep::ShouldStopByMedian over each trial's history: the objective's
// metric after the epochs observed, kept in the status as sweep_history.h says): the trial job gets
// spec.runPolicy.suspend = true (its controller deletes the pods; checkpoints and the job stay for
// inspection) and its row becomes Stopped. A trial job whose spec.runPolicy.suspend is true reads
// as Stopped. Once the sweep has Failed (more than maxFailedTrialCount trials failed), every
// unfinished trial is stopped the same way, with the reason in its row's message, and none is
// created.
//
// Status rows (trial_row.h): the phase from the job's (Pending, Running/Restarting -> Running,
// Succeeded, Failed, Suspended -> Stopped); epochs, best validation loss/accuracy and the times to
// goal are the best of the old row and the job's status.progress, so nothing recorded is ever lost
// (also when a trial job is gone: its row is kept; a Running one becomes Failed). wallSeconds is
// set once the job has finished (a status that changed with the clock would be rewritten on every
// pass). Time to goal:
// progress.goalReachedTrainingSeconds; wall time to goal: progress.goalReachedTime - the job's
// status.startTime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/sweep/expand.h"
#include "operator/api/sweep.h"

namespace petname::controller {

// The most pods a sweep's trials may have at once unless --max-pods-per-sweep says otherwise.
inline constexpr int kDefaultMaxPodsPerSweep = 256;

// The pods a sweep's trials may have at once: the replicas of its parallelTrialCount largest
// trials (each trial's spec.replicas after its assignment; the template's, default 1, when
// replicas is not varied).
int64_t PeakTrialPods(const api::Sweep& sweep, const std::vector<sweep::Assignment>& assignments);

// InvalidArgument naming the peak and the bound when PeakTrialPods exceeds max_pods: the sweep
// is refused (as Katib's admission refuses an Experiment it cannot run) rather than run with less
// parallelism than it asked for. Fails also when the spec cannot be expanded.
Status CheckSweepPods(const api::Sweep& sweep, int64_t max_pods);

struct SweepActions {
  std::vector<nlohmann::json> create;  // trial jobs, in index order
  std::vector<std::string> stop;       // trial job names to suspend
  api::SweepStatus status;             // the sweep's new status
};

// The trial job of index `index` with `assignment` (the object to create).
nlohmann::json TrialJob(const api::Sweep& sweep, int index, const sweep::Assignment& assignment);

// Fails only when the spec cannot be expanded (SweepSpecFromJson admitted it, so never for a
// sweep the API server stored).
Status DesiredSweep(const api::Sweep& sweep, const std::vector<nlohmann::json>& trial_jobs,
                    int64_t now, SweepActions* out);

}  // namespace petname::controller
