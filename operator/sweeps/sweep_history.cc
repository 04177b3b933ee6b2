#include "operator/sweeps/sweep_history.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace petname::controller {
namespace {

double Round6(double v) {
  if (!std::isfinite(v)) return v;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return std::strtod(buf, nullptr);
}

}  // namespace

sweep::EpochPoint KeptPoint(sweep::Metric metric, const sweep::EpochPoint& point) {
  sweep::EpochPoint kept;
  kept.epoch = point.epoch;
  const double value = Round6(sweep::MetricOf(point, metric));
  if (metric == sweep::Metric::kValidationAccuracy) {
    kept.validation_accuracy = value;
  } else {
    kept.validation_loss = value;
  }
  return kept;
}

void CompactHistory(sweep::Metric metric, std::vector<sweep::EpochPoint>* history) {
  std::vector<sweep::EpochPoint> kept;
  double best = sweep::kNaN;
  for (size_t i = 0; i < history->size(); ++i) {
    const sweep::EpochPoint& p = (*history)[i];
    const double value = sweep::MetricOf(p, metric);
    const bool improves = sweep::Better(metric, value, best);
    if (improves) best = value;
    if (improves || i + 1 == history->size()) kept.push_back(p);
  }
  *history = std::move(kept);
}

}  // namespace petname::controller
