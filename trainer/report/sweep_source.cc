// LoadSweep and WriteSweepReport (sweep_report.h): the report's I/O.
#include <algorithm>
#include <filesystem>

#include "common/file_util.h"
#include "common/untrusted_file.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/checkpoint/store.h"
#include "trainer/metrics/metrics_log.h"
#include "trainer/report/loss_report.h"
#include "trainer/report/sweep_report.h"
#include "trainer/sweep/trial_points.h"

namespace petname::report {
namespace {

namespace fs = std::filesystem;

sweep::Value Number(double value) {
  sweep::Value v;
  v.number = value;
  return v;
}

// The newest epoch-*/manifest.json under `trial_dir` that parses, if any.
bool NewestManifest(const fs::path& trial_dir, checkpoint::Manifest* out) {
  std::vector<fs::path> epochs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(trial_dir, ec)) {
    if (e.is_directory() && e.path().filename().string().rfind("epoch-", 0) == 0) {
      epochs.push_back(e.path());
    }
  }
  std::sort(epochs.rbegin(), epochs.rend());  // zero-padded: the newest sorts last
  for (const fs::path& dir : epochs) {
    std::string text;
    if (checkpoint::ReadCheckpointFile(dir.string(), "manifest.json", checkpoint::kMaxManifestBytes,
                                       &text)
            .ok() &&
        checkpoint::ParseManifest(text, /*key=*/"", out).ok()) {
      return true;
    }
  }
  return false;
}

// One trial of a checkpoint volume: its metrics.jsonl, parameters from its newest manifest.
Status LoadTrialDir(const fs::path& dir, sweep::TrialRecord* out) {
  std::vector<metrics::EpochRecord> records;
  PETNAME_RETURN_IF_ERROR(
      metrics::ReadMetricsLog((dir / metrics::kMetricsLogName).string(), &records));
  records = LatestPerEpoch(records);
  sweep::TrialRecord r;
  r.trial.name = dir.filename().string();
  r.trial.phase = sweep::TrialPhase::kSucceeded;
  r.points = sweep::PointsFromRecords(records, sweep::kNaN);
  sweep::Summarize(r.points, sweep::Objective{}, &r.trial);
  r.trial.samples_per_second = sweep::LatestSamplesPerSecond(records);
  checkpoint::Manifest m;
  if (NewestManifest(dir, &m)) {
    r.ranks = static_cast<int>(m.world_size);
    r.batch_size_per_rank = m.hyper.batch_size;
    r.trial.parameters = {
        {"ranks", Number(static_cast<double>(m.world_size))},
        {"training.batchSizePerReplica", Number(static_cast<double>(m.hyper.batch_size))},
        {"training.learningRate", Number(m.hyper.learning_rate)}};
  }
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace

Status LoadSweep(const std::string& dir, sweep::SweepStatus* out) {
  const fs::path root(dir);
  const fs::path status_path = root / sweep::kSweepStatusName;
  if (fs::exists(status_path)) {
    std::string text;
    UntrustedFileRules rules;
    rules.max_bytes = int64_t{64} << 20;
    rules.what = "sweep status";
    PETNAME_RETURN_IF_ERROR(ReadUntrustedFileIn(dir, sweep::kSweepStatusName, rules, &text));
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return Status::Corruption(status_path.string() + " is not JSON");
    return sweep::SweepStatusFromJson(j, out);
  }
  std::vector<fs::path> trial_dirs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory() && fs::exists(e.path() / metrics::kMetricsLogName)) {
      trial_dirs.push_back(e.path());
    }
  }
  if (ec) return Status::NotFound("cannot read " + dir + ": " + ec.message());
  if (trial_dirs.empty()) {
    return Status::NotFound(dir + " has no sweep.json and no trial directory with a metrics.jsonl");
  }
  std::sort(trial_dirs.begin(), trial_dirs.end());
  sweep::SweepStatus s;
  s.name =
      root.filename().empty() ? root.parent_path().filename().string() : root.filename().string();
  std::vector<sweep::Trial> rows;
  for (const fs::path& d : trial_dirs) {
    sweep::TrialRecord r;
    PETNAME_RETURN_IF_ERROR(LoadTrialDir(d, &r));
    rows.push_back(r.trial);
    s.trials.push_back(std::move(r));
  }
  s.best = sweep::BestTrial(rows, s.objective);
  *out = std::move(s);
  return Status::Ok();
}

Status WriteSweepReport(const std::string& dir, const std::string& output_dir,
                        std::vector<std::string>* written) {
  sweep::SweepStatus status;
  PETNAME_RETURN_IF_ERROR(LoadSweep(dir, &status));
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) return Status::IoError("cannot create " + output_dir + ": " + ec.message());
  const std::string svg = RenderSweepSvg(status);
  const std::string svg_path = (fs::path(output_dir) / "sweep.svg").string();
  const std::string html_path = (fs::path(output_dir) / "report.html").string();
  PETNAME_RETURN_IF_ERROR(WriteFileAtomically(svg_path, svg));
  PETNAME_RETURN_IF_ERROR(WriteFileAtomically(html_path, RenderSweepHtml(status, svg)));
  *written = {svg_path, html_path};
  return Status::Ok();
}

}  // namespace petname::report
