#include "operator/sweeps/sweep_history.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "operator/api/sweep.h"

namespace petname::controller {
namespace {

using sweep::EpochPoint;
using sweep::Metric;

EpochPoint Loss(int epoch, double loss) {
  EpochPoint p;
  p.epoch = epoch;
  p.validation_loss = loss;
  p.validation_accuracy = 0.5;
  return p;
}

// History of `epochs` points, observed one at a time as the controller does.
std::vector<EpochPoint> Observed(Metric metric, const std::vector<EpochPoint>& points) {
  std::vector<EpochPoint> h;
  for (const EpochPoint& p : points) {
    h.push_back(KeptPoint(metric, p));
    CompactHistory(metric, &h);
  }
  return h;
}

TEST(SweepHistoryTest, KeepsImprovementsAndTheLastPoint) {
  const auto h = Observed(Metric::kValidationLoss,
                          {Loss(1, 2.0), Loss(2, 2.5), Loss(3, 1.5), Loss(4, 1.5), Loss(5, 1.9)});
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].epoch, 1);
  EXPECT_EQ(h[1].epoch, 3);
  EXPECT_EQ(h[2].epoch, 5);
  EXPECT_EQ(h[2].validation_loss, 1.9);
  EXPECT_TRUE(std::isnan(h[0].validation_accuracy));  // not the objective
}

TEST(SweepHistoryTest, KeepsTheObjectiveAtSixSignificantDigits) {
  EpochPoint p = Loss(1, 0.123456789);
  p.validation_accuracy = 0.987654321;
  const EpochPoint kept = KeptPoint(Metric::kValidationAccuracy, p);
  EXPECT_EQ(kept.validation_accuracy, 0.987654);
  EXPECT_TRUE(std::isnan(kept.validation_loss));
}

// Median stopping decides the same over the kept histories as over the whole ones.
TEST(SweepHistoryTest, MedianStoppingDecidesAsOverTheWholeHistory) {
  sweep::SweepSpec spec;
  spec.median_stopping = true;
  spec.median_stopping_min_trials = 2;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> loss(0.5, 3.0);
  std::uniform_int_distribution<int> epochs(1, 12);
  int stops = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<EpochPoint>> whole(6), kept(6);
    for (size_t t = 0; t < whole.size(); ++t) {
      const int n = epochs(rng);
      for (int e = 1; e <= n; ++e) {
        // Rounded as the status keeps them, so that only the compaction is compared.
        whole[t].push_back(KeptPoint(Metric::kValidationLoss, Loss(e, loss(rng))));
      }
      kept[t] = Observed(Metric::kValidationLoss, whole[t]);
      EXPECT_LE(kept[t].size(), whole[t].size());
    }
    for (int t = 0; t < 6; ++t) {
      const bool stop = sweep::ShouldStopByMedian(spec, whole, t);
      EXPECT_EQ(sweep::ShouldStopByMedian(spec, kept, t), stop) << "round " << round;
      stops += stop;
    }
  }
  EXPECT_GT(stops, 0);  // the comparison covered both answers
}

// The status of a 1,000-trial sweep with 20 epochs each (every epoch improving: the most the
// history keeps) stays well under the API server's 1 MiB request limit (etcd stores 1.5 MiB).
TEST(SweepHistoryTest, StatusOfAThousandTrialsOfTwentyEpochsIsSmall) {
  api::SweepStatus st;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    sweep::Trial t;
    char name[64];
    std::snprintf(name, sizeof(name), "a-sweep-name-of-forty-three-characters-abcd-%03d", i);
    t.name = name;
    sweep::Value lr, replicas;
    lr.number = 0.0001 + u(rng);
    replicas.number = 4;
    t.parameters = {{"training.learningRate", lr}, {"replicas", replicas}};
    t.phase = sweep::TrialPhase::kSucceeded;
    t.epochs = 20;
    t.best_validation_loss = u(rng);
    t.best_validation_accuracy = u(rng);
    t.samples_per_second = 10000 * u(rng);
    t.wall_seconds = 3600 * u(rng);
    t.time_to_goal_seconds = 3000 * u(rng);
    t.wall_time_to_goal_seconds = 3100 * u(rng);
    std::vector<EpochPoint> points;
    double loss = 3.0;
    for (int e = 1; e <= 20; ++e) {
      loss -= 0.01 + 0.1 * u(rng);
      EpochPoint p = Loss(e, loss);
      p.validation_accuracy = u(rng);
      points.push_back(p);
    }
    st.history.push_back(Observed(Metric::kValidationLoss, points));
    ASSERT_EQ(st.history.back().size(), 20u);
    st.trials.push_back(t);
  }
  st.counts.trials = st.counts.succeeded = 1000;
  st.best_trial = st.trials[0].name;
  const size_t bytes = api::SweepStatusToJson(st).dump().size();
  std::printf("status of 1000 trials x 20 epochs: %zu bytes\n", bytes);
  EXPECT_LT(bytes, 1024u * 1024u * 3 / 4);
  const api::SweepStatus back = api::SweepStatusFromJson(api::SweepStatusToJson(st));
  ASSERT_EQ(back.history.size(), 1000u);
  ASSERT_EQ(back.history[999].size(), 20u);
  EXPECT_EQ(back.history[999][19].validation_loss, st.history[999][19].validation_loss);
  EXPECT_TRUE(std::isnan(back.history[999][19].validation_accuracy));
}

}  // namespace
}  // namespace petname::controller
