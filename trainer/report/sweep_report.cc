#include "trainer/report/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "common/number_format.h"
#include "trainer/report/svg_chart.h"

namespace petname::report {
namespace {

using sweep::SweepStatus;
using sweep::TrialRecord;

constexpr double kWidth = 960;
constexpr double kLossHeight = 380;
constexpr double kBarRow = 22;
constexpr double kScalingHeight = 330;
constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string Color(size_t i) { return kColors[i % (sizeof kColors / sizeof kColors[0])]; }

std::string Num(double value) { return FixedDigits(value, 1); }

std::string GoalText(double goal) {
  sweep::Value v;
  v.number = goal;
  return v.ToString();
}

// An SVG text element; `attributes` (e.g. " text-anchor=\"end\"") may set font-size, else 12.
std::string Text(double x, double y, const std::string& text, const std::string& attributes = "") {
  const bool sized = attributes.find("font-size") != std::string::npos;
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\"" + (sized ? "" : " font-size=\"12\"") +
         attributes + ">" + XmlEscape(text) + "</text>\n";
}

Chart LossChart(const SweepStatus& s) {
  Chart chart{"Validation loss against wall time",
              "wall time since the trial started (s)",
              "validation loss",
              {}};
  for (size_t i = 0; i < s.trials.size(); ++i) {
    Series series{s.trials[i].trial.name, Color(i), {}, {}};
    for (const sweep::EpochPoint& p : s.trials[i].points) {
      const bool wall = std::isfinite(p.wall_seconds);
      if (!wall) chart.x_label = "wall time since the trial started (s; training time if unknown)";
      series.x.push_back(wall ? p.wall_seconds : p.training_seconds);
      series.y.push_back(p.validation_loss);
    }
    chart.series.push_back(series);
  }
  return chart;
}

double BarsHeight(const SweepStatus& s) {
  return 50 + kBarRow * static_cast<double>(s.trials.size());
}

// Time to goal (training seconds) per trial as horizontal bars.
std::string GoalBars(const SweepStatus& s, double top) {
  std::string title = "Time to goal (training seconds)";
  if (s.objective.has_goal) {
    title += ": " + std::string(sweep::MetricName(s.objective.metric)) +
             (s.objective.metric == sweep::Metric::kValidationLoss ? " <= " : " >= ") +
             GoalText(s.objective.goal);
  } else {
    title += ": the sweep has no goal";
  }
  std::string svg = Text(kWidth / 2, top + 20, title, " text-anchor=\"middle\" font-size=\"15\"");
  double longest = 0;
  for (const TrialRecord& r : s.trials) {
    if (std::isfinite(r.trial.time_to_goal_seconds)) {
      longest = std::max(longest, r.trial.time_to_goal_seconds);
    }
  }
  const double left = 230;
  const double span = kWidth - left - 120;
  for (size_t i = 0; i < s.trials.size(); ++i) {
    const sweep::Trial& t = s.trials[i].trial;
    const double y = top + 40 + kBarRow * static_cast<double>(i);
    svg += Text(left - 8, y + 14, t.name, " text-anchor=\"end\"");
    if (!std::isfinite(t.time_to_goal_seconds)) {
      svg += Text(left + 4, y + 14, "goal not reached", " fill=\"#888\" font-style=\"italic\"");
      continue;
    }
    const double w = longest > 0 ? std::max(1.0, span * t.time_to_goal_seconds / longest) : 1;
    svg += "<rect x=\"" + Num(left) + "\" y=\"" + Num(y + 3) + "\" width=\"" + Num(w) +
           "\" height=\"" + Num(kBarRow - 6) + "\" fill=\"" + Color(i) + "\"/>\n";
    svg += Text(left + w + 6, y + 14, FixedDigits(t.time_to_goal_seconds, 1) + " s");
  }
  return svg;
}

// Speed-up and scaling efficiency against ranks, one series per group with at least two rank
// counts; the fewest ranks of a group are its baseline. Groups are trials of equal global batch
// (ranks x batch per rank: strong scaling) or, with `per_rank`, of equal batch per rank (weak
// scaling: efficiency is then samples/s per rank against the baseline's).
std::pair<Chart, Chart> ScalingCharts(const SweepStatus& s, bool per_rank) {
  // group batch -> ranks -> samples/s of each trial
  std::map<int64_t, std::map<int, std::vector<double>>> groups;
  for (const TrialRecord& r : s.trials) {
    if (r.ranks <= 0 || r.batch_size_per_rank <= 0 || !std::isfinite(r.trial.samples_per_second)) {
      continue;
    }
    const int64_t key = per_rank ? r.batch_size_per_rank : r.ranks * r.batch_size_per_rank;
    groups[key][r.ranks].push_back(r.trial.samples_per_second);
  }
  const std::string kind = per_rank ? "batch per rank" : "global batch";
  Chart speedup{"Speed-up at equal " + kind, "ranks", "speed-up (samples/s over baseline)", {}};
  Chart efficiency{
      "Scaling efficiency at equal " + kind, "ranks", "efficiency (speed-up / rank ratio)", {}};
  size_t color = 0;
  for (const auto& [batch, by_ranks] : groups) {
    if (by_ranks.size() < 2) continue;
    const std::string name = kind + " " + std::to_string(batch);
    Series up{name, Color(color), {}, {}};
    Series eff{name, Color(color++), {}, {}};
    double base = 0;
    int base_ranks = 0;
    for (const auto& [ranks, rates] : by_ranks) {
      double mean = 0;
      for (double v : rates) mean += v / static_cast<double>(rates.size());
      if (base_ranks == 0) {
        base = mean;
        base_ranks = ranks;
      }
      const double ratio = base > 0 ? mean / base : NAN;
      up.x.push_back(ranks);
      up.y.push_back(ratio);
      eff.x.push_back(ranks);
      eff.y.push_back(ratio / (static_cast<double>(ranks) / base_ranks));
    }
    speedup.series.push_back(up);
    efficiency.series.push_back(eff);
  }
  return {speedup, efficiency};
}

std::string Parameters(const sweep::Trial& t) { return sweep::DescribeAssignment(t.parameters); }

}  // namespace

std::string RenderSweepSvg(const SweepStatus& s) {
  // Strong scaling when the grid has equal global batches at several rank counts, else weak.
  auto [speedup, efficiency] = ScalingCharts(s, /*per_rank=*/false);
  if (speedup.series.empty()) std::tie(speedup, efficiency) = ScalingCharts(s, true);
  const double bars_top = 40 + kLossHeight;
  const double scaling_top = bars_top + BarsHeight(s);
  const double height = scaling_top + (speedup.series.empty() ? 60 : kScalingHeight + 10);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + FixedDigits(kWidth, 0) +
         "\" height=\"" + FixedDigits(height, 0) + "\" viewBox=\"0 0 " + FixedDigits(kWidth, 0) +
         " " + FixedDigits(height, 0) + "\" font-family=\"sans-serif\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title = "Sweep " + s.name + ": " + std::to_string(s.trials.size()) + " trials";
  if (s.best >= 0) title += ", best " + s.trials[s.best].trial.name;
  svg += Text(kWidth / 2, 24, title, " text-anchor=\"middle\" font-size=\"18\"");
  svg += RenderChart(LossChart(s), 0, 40, kWidth, kLossHeight);
  svg += GoalBars(s, bars_top);
  if (speedup.series.empty()) {
    svg += Text(kWidth / 2, scaling_top + 40,
                "Scaling: no batch was trained at two or more rank counts",
                " text-anchor=\"middle\" font-size=\"15\" fill=\"#888\"");
  } else {
    svg += RenderChart(speedup, 0, scaling_top, kWidth / 2, kScalingHeight);
    svg += RenderChart(efficiency, kWidth / 2, scaling_top, kWidth / 2, kScalingHeight);
  }
  return svg + "</svg>\n";
}

std::string RenderSweepHtml(const SweepStatus& s, const std::string& svg) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>petname sweep " + XmlEscape(s.name) + "</title>\n";
  html +=
      "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
      "td:first-child,td.text{text-align:left}tr.best{font-weight:bold}</style>\n";
  html += "</head>\n<body>\n<h1>Sweep " + XmlEscape(s.name) + "</h1>\n";
  if (!s.phase.empty()) {
    html += "<p>Phase " + XmlEscape(s.phase) +
            (s.reason.empty() ? "" : ": " + XmlEscape(s.reason)) + "</p>\n";
  }
  const size_t body = svg.find("<svg");
  html += body == std::string::npos ? svg : svg.substr(body);
  html +=
      "<table>\n<tr><th>trial</th><th>phase</th><th>parameters</th><th>ranks</th><th>epochs</th>"
      "<th>val loss</th><th>val accuracy</th><th>samples/s</th><th>wall s</th>"
      "<th>time to goal s</th><th>wall time to goal s</th><th>message</th></tr>\n";
  for (size_t i = 0; i < s.trials.size(); ++i) {
    const TrialRecord& r = s.trials[i];
    const sweep::Trial& t = r.trial;
    html += static_cast<int>(i) == s.best ? "<tr class=\"best\">" : "<tr>";
    html += "<td>" + XmlEscape(t.name) + "</td><td class=\"text\">" +
            (s.phase.empty() ? "-" : sweep::TrialPhaseName(t.phase)) + "</td><td class=\"text\">" +
            XmlEscape(Parameters(t)) + "</td><td>" + (r.ranks > 0 ? std::to_string(r.ranks) : "-") +
            "</td><td>" + std::to_string(t.epochs) + "</td><td>" +
            FixedDigits(t.best_validation_loss, 4) + "</td><td>" +
            FixedDigits(t.best_validation_accuracy, 4) + "</td><td>" +
            FixedDigits(t.samples_per_second, 0) + "</td><td>" + FixedDigits(t.wall_seconds, 1) +
            "</td><td>" + FixedDigits(t.time_to_goal_seconds, 1) + "</td><td>" +
            FixedDigits(t.wall_time_to_goal_seconds, 1) + "</td><td class=\"text\">" +
            XmlEscape(t.message) + "</td></tr>\n";
  }
  return html + "</table>\n</body>\n</html>\n";
}

}  // namespace petname::report
