#include "trainer/sweep/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/file_util.h"
#include "common/sweep/expand.h"
#include "common/time_util.h"
#include "common/untrusted_file.h"
#include "trainer/launch/child.h"
#include "trainer/launch/cpu_budget.h"
#include "trainer/metrics/metrics_log.h"
#include "trainer/sweep/stop_signals.h"
#include "trainer/sweep/sweep_console.h"
#include "trainer/sweep/sweep_file.h"
#include "trainer/sweep/sweep_status.h"
#include "trainer/sweep/trial_args.h"
#include "trainer/sweep/trial_gpus.h"
#include "trainer/sweep/trial_points.h"

namespace petname::sweep {
namespace {

namespace fs = std::filesystem;

// One trial of the sweep, created or not.
struct Slot {
  std::string dir;
  Assignment assignment;
  bool created = false;
  TrialRecord record;
  pid_t pid = -1;  // while its process runs
  double start_unix = kNaN;
  bool median_stopped = false;
  bool terminated = false;  // SIGTERM sent (once: the trial's launcher kills on a second)
  int gpu_slot = -1;        // while a GPU trial runs: its slot of GPUs (trial_gpus.h)
};

void Terminate(Slot* s) {
  if (s->pid < 0 || s->terminated) return;
  s->terminated = true;
  ::kill(s->pid, SIGTERM);
}

struct Context {
  SweepSpec spec;  // parallel_trial_count is the run's --parallel
  std::string name;
  std::string algorithm;
  std::string dir;
  TrialRun run;
  std::string executable;
  std::vector<Slot> slots;
  std::vector<std::string> gpus;  // the visible GPUs, when a trial needs GPUs
  int gpus_per_trial = 0;         // the most ranks of a GPU trial
};

// The CUDA_VISIBLE_DEVICES setting of a GPU trial about to start in `s`, which takes the
// lowest free slot of GPUs; none for a CPU trial.
std::vector<std::pair<std::string, std::string>> TakeGpus(const Context& c, bool gpu, Slot* s) {
  if (!gpu) return {};
  std::vector<int> taken;
  for (const Slot& other : c.slots) {
    if (other.pid >= 0 && other.gpu_slot >= 0) taken.push_back(other.gpu_slot);
  }
  s->gpu_slot = LowestFreeSlot(taken, c.spec.parallel_trial_count);
  return {{"CUDA_VISIBLE_DEVICES", SlotGpus(c.gpus, s->gpu_slot, c.gpus_per_trial)}};
}

// The last non-empty line of the trial's log, for a failed trial's message.
std::string LastLogLine(const Slot& s) {
  std::string text;
  if (!ReadUntrustedFileIn(s.dir, kTrialLogName, SweepFileRules(), &text).ok()) return "";
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last.substr(0, 300);
}

// Re-reads the trial's metrics.jsonl into its points and summary row.
void Observe(const Context& c, Slot* s) {
  if (std::isfinite(s->start_unix)) s->record.trial.wall_seconds = UnixNowSeconds() - s->start_unix;
  std::vector<metrics::EpochRecord> records;
  if (!metrics::ReadMetricsLog((fs::path(s->dir) / metrics::kMetricsLogName).string(), &records)
           .ok()) {
    return;
  }
  s->record.points = PointsFromRecords(records, s->start_unix);
  Summarize(s->record.points, c.spec.objective, &s->record.trial);
  s->record.trial.samples_per_second = LatestSamplesPerSecond(records);
}

SweepStatus StatusOf(const Context& c, SweepPhase phase, const std::string& reason) {
  SweepStatus status;
  status.name = c.name;
  status.algorithm = c.algorithm;
  status.phase = SweepPhaseName(phase);
  status.reason = reason;
  status.objective = c.spec.objective;
  std::vector<Trial> rows;
  for (const Slot& s : c.slots) {
    if (!s.created) continue;
    status.trials.push_back(s.record);
    rows.push_back(s.record.trial);
  }
  status.best = BestTrial(rows, c.spec.objective);
  return status;
}

Status WriteStatus(const Context& c, const SweepStatus& status) {
  return WriteFileAtomically((fs::path(c.dir) / kSweepStatusName).string(),
                             SweepStatusToJson(status).dump(2) + "\n");
}

std::vector<Trial> CreatedTrials(const Context& c, std::vector<bool>* created) {
  std::vector<Trial> rows;
  for (const Slot& s : c.slots) {
    created->push_back(s.created);
    if (s.created) rows.push_back(s.record.trial);
  }
  return rows;
}

Status Start(Context* c, int index) {
  Slot& s = c->slots[static_cast<size_t>(index)];
  TrialRun run = c->run;
  run.trial_dir = s.dir;
  TrialCommand command;
  PETNAME_RETURN_IF_ERROR(TrialTrainArgs(ApplyAssignment(c->spec.job_template, s.assignment),
                                         c->spec, run, /*resume=*/true, &command));
  std::vector<std::string>& args = command.args;
  const int ranks = command.ranks;
  std::error_code ec;
  fs::create_directories(s.dir, ec);
  if (ec) return Status::IoError("cannot create " + s.dir + ": " + ec.message());
  const std::string log = (fs::path(s.dir) / kTrialLogName).string();
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError("cannot open " + log, errno);
  args.insert(args.begin(), "petname");
  const auto gpus = TakeGpus(*c, command.gpu, &s);
  const pid_t pid =
      launch::StartChild({c->executable, args, launch::EnvironmentWith(gpus), fd, fd});
  const int fork_errno = errno;
  ::close(fd);
  if (pid < 0) return Status::IoError("cannot start trial " + s.record.trial.name, fork_errno);
  s.created = true;
  s.pid = pid;
  s.terminated = false;
  s.start_unix = UnixNowSeconds();
  s.record.trial.phase = TrialPhase::kRunning;
  s.record.trial.message.clear();
  PrintTrialStarted(s.record.trial.name, s.assignment, ranks, gpus.empty() ? "" : gpus[0].second,
                    log);
  return Status::Ok();
}

// Reaps `s` if its process ended; true when it did.
bool Reap(const Context& c, Slot* s) {
  int status = 0;
  if (s->pid < 0 || ::waitpid(s->pid, &status, WNOHANG) != s->pid) return false;
  s->pid = -1;
  s->gpu_slot = -1;
  Observe(c, s);
  Trial& t = s->record.trial;
  const int code = launch::ExitCodeOf(status);
  if (s->median_stopped) {
    t.phase = TrialPhase::kStopped;
    t.message = "stopped by median stopping after epoch " + std::to_string(t.epochs);
  } else if (code == 0) {
    t.phase = TrialPhase::kSucceeded;
  } else if (StopSignals::Requested()) {
    t.phase = TrialPhase::kPending;
    t.message = "interrupted; run the same command again to resume";
  } else {
    t.phase = TrialPhase::kFailed;
    t.message = "exit code " + std::to_string(code) + ": " + LastLogLine(*s);
  }
  PrintTrialEnded(t, c.spec.objective);
  return true;
}

// Median stopping of the running trials.
void StopBehindMedian(Context* c) {
  if (!c->spec.median_stopping) return;
  std::vector<std::vector<EpochPoint>> history;
  std::vector<Slot*> created;
  for (Slot& s : c->slots) {
    if (!s.created) continue;
    history.push_back(s.record.points);
    created.push_back(&s);
  }
  for (size_t i = 0; i < created.size(); ++i) {
    Slot* s = created[i];
    if (s->pid < 0 || s->median_stopped) continue;
    if (ShouldStopByMedian(c->spec, history, static_cast<int>(i))) {
      s->median_stopped = true;
      Terminate(s);
    }
  }
}

// Checks the file, the spec and every trial's flags, and fills `c`; writes nothing.
Status Prepare(const SweepRunOptions& o, Context* c) {
  SweepFile file;
  PETNAME_RETURN_IF_ERROR(ReadSweepFile(o.config, &file));
  PETNAME_RETURN_IF_ERROR(SweepSpecFromJson(file.spec, &c->spec));
  if (o.parallel < 0) return Status::InvalidArgument("--parallel must be >= 1");
  const int cpus = launch::ReadCpuBudget().Cpus();
  // Unless --parallel says otherwise, no more trials at once than there are CPUs.
  c->spec.parallel_trial_count =
      o.parallel > 0 ? o.parallel : std::min(c->spec.parallel_trial_count, cpus);
  std::vector<Assignment> assignments;
  PETNAME_RETURN_IF_ERROR(ExpandTrials(c->spec, &assignments));
  c->name = file.name;
  c->algorithm = c->spec.algorithm == Algorithm::kGrid ? "grid" : "random";
  c->dir = o.dir;
  c->executable = o.executable;
  c->run.data = o.data.empty() ? file.data : o.data;
  c->run.cpu_budget = cpus;
  c->run.parallel = c->spec.parallel_trial_count;
  for (size_t i = 0; i < assignments.size(); ++i) {
    Slot s;
    s.record.trial.name = TrialName(c->name, static_cast<int>(i));
    s.record.trial.parameters = assignments[i];
    s.assignment = assignments[i];
    s.dir = (fs::path(o.dir) / s.record.trial.name).string();
    TrialRun run = c->run;
    run.trial_dir = s.dir;
    TrialCommand command;
    Status st = TrialTrainArgs(ApplyAssignment(c->spec.job_template, s.assignment), c->spec, run,
                               false, &command);
    if (!st.ok()) return Status::InvalidArgument(s.record.trial.name + ": " + st.message());
    s.record.ranks = command.ranks;
    s.record.batch_size_per_rank = command.batch_size_per_rank;
    if (command.gpu) c->gpus_per_trial = std::max(c->gpus_per_trial, command.ranks);
    c->slots.push_back(std::move(s));
  }
  if (c->gpus_per_trial == 0) return Status::Ok();
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  c->gpus = VisibleGpus(visible == nullptr ? std::nullopt : std::optional<std::string>(visible),
                        o.count_gpus());
  PETNAME_RETURN_IF_ERROR(GpuParallel(o.parallel, c->spec.parallel_trial_count, c->gpus_per_trial,
                                      static_cast<int>(c->gpus.size()),
                                      &c->spec.parallel_trial_count));
  c->run.parallel = c->spec.parallel_trial_count;
  return Status::Ok();
}

// Trials finished by an earlier run (their summary.json exists, or the old sweep.json says
// Stopped) keep their row from the old sweep.json, or are summarised from their metrics.jsonl.
void AdoptFinished(Context* c) {
  SweepStatus old;
  std::string text;
  if (ReadUntrustedFileIn(c->dir, kSweepStatusName, SweepFileRules(), &text).ok()) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded()) (void)SweepStatusFromJson(j, &old);
  }
  for (Slot& s : c->slots) {
    const TrialRecord* before = nullptr;
    for (const TrialRecord& r : old.trials) {
      if (r.trial.name == s.record.trial.name) before = &r;
    }
    // A trial stopped by median stopping stays stopped; it has no summary.json.
    const bool stopped = before != nullptr && before->trial.phase == TrialPhase::kStopped;
    if (!stopped && !fs::exists(fs::path(s.dir) / kTrialSummaryName)) continue;
    s.created = true;
    if (before != nullptr && IsFinished(before->trial.phase)) {
      s.record = *before;
    } else {
      Observe(*c, &s);
      s.record.trial.phase = TrialPhase::kSucceeded;
    }
    std::printf("trial %s already %s\n", s.record.trial.name.c_str(),
                TrialPhaseName(s.record.trial.phase));
  }
}

}  // namespace

Status RunSweep(const SweepRunOptions& options, SweepPhase* phase) {
  Context c;
  PETNAME_RETURN_IF_ERROR(Prepare(options, &c));
  std::error_code ec;
  fs::create_directories(c.dir, ec);
  if (ec) return Status::IoError("cannot create " + c.dir + ": " + ec.message());
  AdoptFinished(&c);
  StopSignals signals;
  const int total = static_cast<int>(c.slots.size());
  std::string reason;
  for (;;) {
    bool changed = false;
    int running = 0;
    for (Slot& s : c.slots) {
      if (s.pid < 0) continue;
      if (Reap(c, &s)) {
        changed = true;
      } else {
        const size_t points = s.record.points.size();
        Observe(c, &s);
        changed = changed || s.record.points.size() != points;  // a new epoch
        ++running;
      }
    }
    if (StopSignals::Requested()) {
      for (Slot& s : c.slots) Terminate(&s);
      if (running == 0) break;
    } else {
      StopBehindMedian(&c);
      std::vector<bool> created;
      const std::vector<Trial> rows = CreatedTrials(c, &created);
      *phase = DecideSweepPhase(c.spec, total, rows, &reason);
      if ((*phase == SweepPhase::kSucceeded || *phase == SweepPhase::kFailed) && running == 0) {
        break;
      }
      for (int i : TrialsToStart(c.spec, total, created, rows)) {
        PETNAME_RETURN_IF_ERROR(Start(&c, i));
        changed = true;
      }
    }
    if (changed) {
      std::vector<bool> created;
      *phase = DecideSweepPhase(c.spec, total, CreatedTrials(c, &created), &reason);
      PETNAME_RETURN_IF_ERROR(WriteStatus(c, StatusOf(c, *phase, reason)));
    }
    ::poll(nullptr, 0, 250);
  }
  const SweepStatus status = StatusOf(c, *phase, reason);
  PETNAME_RETURN_IF_ERROR(WriteStatus(c, status));
  PrintSweepTable(status);
  if (StopSignals::Requested()) {
    return Status::Unavailable("sweep interrupted; run the same command again to resume it");
  }
  std::printf("sweep %s %s: %s\n", c.name.c_str(), SweepPhaseName(*phase), reason.c_str());
  return Status::Ok();
}

}  // namespace petname::sweep
