// `petname report --sweep DIR`: one page comparing a sweep's trials. sweep.svg holds three
// parts: validation loss against wall time for every trial (training time where wall time is
// unknown), time to goal per trial as horizontal bars (trials that did not reach it marked),
// and speed-up and scaling efficiency against ranks at equal global batch (ranks x batch per
// rank) from samples per second. report.html holds the SVG inline and the trial table.
//
// The sweep comes from DIR/sweep.json (`petname sweep`), or, without one, from DIR's
// subdirectories that hold a metrics.jsonl: a cluster sweep's checkpoint volume, one
// directory per trial, parameters from the newest epoch-*/manifest.json.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/sweep/sweep_status.h"

namespace petname::report {

// A standalone SVG document (pure).
std::string RenderSweepSvg(const sweep::SweepStatus& status);

// A self-contained HTML page: `svg` inline and the trial table, every text HTML-escaped (pure).
std::string RenderSweepHtml(const sweep::SweepStatus& status, const std::string& svg);

// Loads the sweep of `dir` as described above. kNotFound when `dir` has neither sweep.json nor
// a trial directory; kCorruption for a sweep.json or metrics.jsonl that does not parse.
Status LoadSweep(const std::string& dir, sweep::SweepStatus* out);

// LoadSweep, then writes OUTPUT_DIR/sweep.svg and OUTPUT_DIR/report.html atomically;
// `written` gets their paths.
Status WriteSweepReport(const std::string& dir, const std::string& output_dir,
                        std::vector<std::string>* written);

}  // namespace petname::report
