#include "trainer/sweep/trial_points.h"

#include <cmath>

namespace petname::sweep {

std::vector<EpochPoint> PointsFromRecords(const std::vector<metrics::EpochRecord>& records,
                                          double start_unix) {
  std::vector<EpochPoint> points;
  points.reserve(records.size());
  for (const metrics::EpochRecord& r : records) {
    EpochPoint p;
    p.epoch = r.epoch;
    p.training_seconds = r.elapsed_seconds;
    const double wall = r.timestamp - start_unix;
    p.wall_seconds = std::isfinite(wall) && wall >= 0 ? wall : kNaN;
    p.validation_loss = r.validation_loss;
    p.validation_accuracy = r.validation_accuracy;
    points.push_back(p);
  }
  return points;
}

double LatestSamplesPerSecond(const std::vector<metrics::EpochRecord>& records) {
  return records.empty() ? kNaN : records.back().samples_per_second;
}

}  // namespace petname::sweep
