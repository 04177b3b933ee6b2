#include "common/sweep/trials.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace petname::sweep {
namespace {

EpochPoint Point(int epoch, double seconds, double loss, double accuracy) {
  EpochPoint p;
  p.epoch = epoch;
  p.training_seconds = seconds;
  p.wall_seconds = seconds + 10;
  p.validation_loss = loss;
  p.validation_accuracy = accuracy;
  return p;
}

Objective Goal(Metric metric, double goal) {
  Objective o;
  o.metric = metric;
  o.has_goal = true;
  o.goal = goal;
  return o;
}

TEST(TrialsTest, PhaseNamesRoundTrip) {
  for (TrialPhase p : {TrialPhase::kPending, TrialPhase::kRunning, TrialPhase::kSucceeded,
                       TrialPhase::kFailed, TrialPhase::kStopped}) {
    TrialPhase back = TrialPhase::kPending;
    ASSERT_TRUE(TrialPhaseFromName(TrialPhaseName(p), &back));
    EXPECT_EQ(back, p);
  }
  TrialPhase unused;
  EXPECT_FALSE(TrialPhaseFromName("running", &unused));
  EXPECT_TRUE(IsFinished(TrialPhase::kStopped));
  EXPECT_FALSE(IsFinished(TrialPhase::kRunning));
  EXPECT_STREQ(SweepPhaseName(SweepPhase::kSucceeded), "Succeeded");
}

TEST(TrialsTest, GoalsAndComparisons) {
  EXPECT_TRUE(ReachesGoal(Goal(Metric::kValidationLoss, 1.6), 1.6));
  EXPECT_FALSE(ReachesGoal(Goal(Metric::kValidationLoss, 1.6), 1.7));
  EXPECT_TRUE(ReachesGoal(Goal(Metric::kValidationAccuracy, 0.5), 0.6));
  EXPECT_FALSE(ReachesGoal(Goal(Metric::kValidationAccuracy, 0.5), kNaN));
  EXPECT_FALSE(ReachesGoal(Objective(), 0));
  EXPECT_TRUE(Better(Metric::kValidationLoss, 1, 2));
  EXPECT_TRUE(Better(Metric::kValidationAccuracy, 2, 1));
  EXPECT_TRUE(Better(Metric::kValidationLoss, 9, kNaN));
  EXPECT_FALSE(Better(Metric::kValidationLoss, kNaN, 9));
}

TEST(TrialsTest, SummarizeFindsBestValuesAndTheFirstEpochAtGoal) {
  // Out of order; epoch 2 is repeated (a resumed trial re-measured it): the last one wins.
  std::vector<EpochPoint> points = {Point(3, 300, 1.55, 0.58), Point(1, 100, 1.85, 0.50),
                                    Point(2, 200, 1.90, 0.40), Point(2, 210, 1.60, 0.57),
                                    Point(4, 400, 1.58, 0.59)};
  Trial t;
  Summarize(points, Goal(Metric::kValidationLoss, 1.6), &t);
  EXPECT_EQ(t.epochs, 4);
  EXPECT_EQ(t.best_validation_loss, 1.55);
  EXPECT_EQ(t.best_validation_accuracy, 0.59);
  EXPECT_EQ(t.time_to_goal_seconds, 210);
  EXPECT_EQ(t.wall_time_to_goal_seconds, 220);

  Summarize(points, Goal(Metric::kValidationAccuracy, 0.58), &t);
  EXPECT_EQ(t.time_to_goal_seconds, 300);

  Summarize(points, Goal(Metric::kValidationAccuracy, 0.9), &t);
  EXPECT_TRUE(std::isnan(t.time_to_goal_seconds));
  EXPECT_TRUE(std::isnan(t.wall_time_to_goal_seconds));

  Summarize({}, Objective(), &t);
  EXPECT_EQ(t.epochs, 0);
  EXPECT_TRUE(std::isnan(t.best_validation_loss));
}

Trial WithResult(double loss, double time_to_goal) {
  Trial t;
  t.best_validation_loss = loss;
  t.time_to_goal_seconds = time_to_goal;
  return t;
}

TEST(TrialsTest, BestTrialWithoutGoalIsTheBestValueEarlierOnTies) {
  Objective o;
  std::vector<Trial> trials = {WithResult(kNaN, kNaN), WithResult(1.6, kNaN), WithResult(1.5, kNaN),
                               WithResult(1.5, kNaN)};
  EXPECT_EQ(BestTrial(trials, o), 2);
  EXPECT_EQ(BestTrial({WithResult(kNaN, kNaN)}, o), -1);
  EXPECT_EQ(BestTrial({}, o), -1);
}

TEST(TrialsTest, BestTrialWithGoalIsTheFastestToReachIt) {
  Objective o = Goal(Metric::kValidationLoss, 1.6);
  std::vector<Trial> trials = {WithResult(1.5, kNaN), WithResult(1.55, 300), WithResult(1.58, 200),
                               WithResult(1.59, 200)};
  EXPECT_EQ(BestTrial(trials, o), 2);
  // None reached the goal: the best value decides.
  EXPECT_EQ(BestTrial({WithResult(1.7, kNaN), WithResult(1.65, kNaN)}, o), 1);
}

std::vector<EpochPoint> Losses(const std::vector<double>& losses) {
  std::vector<EpochPoint> out;
  for (size_t i = 0; i < losses.size(); ++i) {
    out.push_back(Point(static_cast<int>(i) + 1, 0, losses[i], kNaN));
  }
  return out;
}

SweepSpec MedianSpec() {
  SweepSpec s;
  s.median_stopping = true;
  s.median_stopping_min_trials = 3;
  return s;
}

TEST(TrialsTest, MedianStopsATrialBehindTheOthers) {
  std::vector<std::vector<EpochPoint>> h = {Losses({2.0, 1.8, 1.7}), Losses({2.1, 1.9}),
                                            Losses({1.9, 1.7, 1.6}), Losses({2.3, 2.2})};
  // Trial 3 at epoch 2: 2.2 against the median of 1.8, 1.9, 1.7 (1.8).
  EXPECT_TRUE(ShouldStopByMedian(MedianSpec(), h, 3));
  // Trial 1 at epoch 2: 1.9 against 1.8, 1.7, 2.2 (median 1.8).
  EXPECT_TRUE(ShouldStopByMedian(MedianSpec(), h, 1));
  // Trial 2 at epoch 3: only trial 0 reached epoch 3.
  EXPECT_FALSE(ShouldStopByMedian(MedianSpec(), h, 2));
  // Trial 0 at epoch 3: not enough others either.
  EXPECT_FALSE(ShouldStopByMedian(MedianSpec(), h, 0));
}

TEST(TrialsTest, MedianKeepsATrialAtOrAheadOfTheMedian) {
  std::vector<std::vector<EpochPoint>> h = {Losses({2.0, 1.8}), Losses({2.0, 1.9}),
                                            Losses({2.0, 1.7}), Losses({2.0, 1.8})};
  EXPECT_FALSE(ShouldStopByMedian(MedianSpec(), h, 3));  // equal to the median 1.8
  EXPECT_FALSE(ShouldStopByMedian(MedianSpec(), h, 2));
  SweepSpec off = MedianSpec();
  off.median_stopping = false;
  EXPECT_FALSE(ShouldStopByMedian(off, h, 1));
  EXPECT_FALSE(ShouldStopByMedian(MedianSpec(), h, 9));
  SweepSpec four = MedianSpec();
  four.median_stopping_min_trials = 4;
  EXPECT_FALSE(ShouldStopByMedian(four, h, 1));
}

TEST(TrialsTest, MedianUsesTheBestValueUpToTheEpochForAccuracy) {
  SweepSpec s = MedianSpec();
  s.objective.metric = Metric::kValidationAccuracy;
  auto acc = [](const std::vector<double>& values) {
    std::vector<EpochPoint> out;
    for (size_t i = 0; i < values.size(); ++i) {
      out.push_back(Point(static_cast<int>(i) + 1, 0, kNaN, values[i]));
    }
    return out;
  };
  // Trial 3's best up to epoch 2 is 0.55 (its epoch 2 dipped); the others' are 0.5, 0.52, 0.6.
  std::vector<std::vector<EpochPoint>> h = {acc({0.5, 0.45, 0.7}), acc({0.4, 0.52}),
                                            acc({0.6, 0.6}), acc({0.55, 0.3})};
  EXPECT_FALSE(ShouldStopByMedian(s, h, 3));
  h[3] = acc({0.4, 0.3});
  EXPECT_TRUE(ShouldStopByMedian(s, h, 3));
}

Trial InPhase(TrialPhase phase) {
  Trial t;
  t.phase = phase;
  return t;
}

std::vector<Trial> Phases(const std::vector<TrialPhase>& phases) {
  std::vector<Trial> out;
  for (TrialPhase p : phases) out.push_back(InPhase(p));
  return out;
}

constexpr TrialPhase P = TrialPhase::kPending;
constexpr TrialPhase R = TrialPhase::kRunning;
constexpr TrialPhase S = TrialPhase::kSucceeded;
constexpr TrialPhase F = TrialPhase::kFailed;
constexpr TrialPhase X = TrialPhase::kStopped;

TEST(TrialsTest, CountsPhases) {
  Counts c = CountTrials(Phases({P, R, R, S, F, X, X}));
  EXPECT_EQ(c.trials, 7);
  EXPECT_EQ(c.pending, 1);
  EXPECT_EQ(c.running, 2);
  EXPECT_EQ(c.succeeded, 1);
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.stopped, 2);
}

TEST(TrialsTest, TrialsToStartNeverExceedsParallelism) {
  SweepSpec s;  // parallelTrialCount 3
  EXPECT_EQ(TrialsToStart(s, 10, std::vector<bool>(10, false), {}), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(TrialsToStart(s, 2, std::vector<bool>(2, false), {}), (std::vector<int>{0, 1}));

  std::vector<bool> created = {true, true, true, false, false};
  EXPECT_TRUE(TrialsToStart(s, 5, created, Phases({R, P, R})).empty());
  // Finished ones (failures included) free their slots.
  EXPECT_EQ(TrialsToStart(s, 5, created, Phases({S, F, R})), (std::vector<int>{3, 4}));
  EXPECT_EQ(TrialsToStart(s, 5, created, Phases({X, R, R})), (std::vector<int>{3}));
  // The lowest indices not created, whatever the order of creation.
  created = {true, false, true, false, false};
  EXPECT_EQ(TrialsToStart(s, 5, created, Phases({S, R})), (std::vector<int>{1, 3}));
  s.parallel_trial_count = 1;
  EXPECT_EQ(TrialsToStart(s, 5, created, Phases({S, S})), (std::vector<int>{1}));
  EXPECT_TRUE(TrialsToStart(s, 5, created, Phases({S, R})).empty());
}

TEST(TrialsTest, TrialsToStartStopsOnceTheSweepFailed) {
  SweepSpec s;
  s.max_failed_trial_count = 1;
  std::vector<bool> created = {true, true, false, false};
  EXPECT_EQ(TrialsToStart(s, 4, created, Phases({F, R})), (std::vector<int>{2, 3}));
  EXPECT_TRUE(TrialsToStart(s, 4, created, Phases({F, F})).empty());
}

SweepPhase Decide(const SweepSpec& s, int total, const std::vector<TrialPhase>& phases,
                  std::string* reason) {
  return DecideSweepPhase(s, total, Phases(phases), reason);
}

TEST(TrialsTest, DecidesTheSweepPhase) {
  SweepSpec s;
  std::string reason;
  EXPECT_EQ(Decide(s, 4, {}, &reason), SweepPhase::kCreated);
  EXPECT_EQ(Decide(s, 4, {P}, &reason), SweepPhase::kRunning);
  EXPECT_EQ(Decide(s, 4, {S, F, S}, &reason), SweepPhase::kRunning);  // one to create
  EXPECT_EQ(Decide(s, 4, {F, F, F}, &reason), SweepPhase::kRunning);  // unset: tolerated
  EXPECT_EQ(Decide(s, 4, {S, F, X, R}, &reason), SweepPhase::kRunning);
  EXPECT_EQ(reason, "1 running, 0 pending, 3 of 4 finished (1 succeeded, 1 failed, 1 stopped)");
  EXPECT_EQ(Decide(s, 4, {S, F, X, F}, &reason), SweepPhase::kSucceeded);
  EXPECT_EQ(reason, "all 4 trials finished (1 succeeded, 2 failed, 1 stopped)");
  EXPECT_EQ(Decide(s, 2, {X, X}, &reason), SweepPhase::kSucceeded);
  EXPECT_EQ(Decide(s, 2, {F, F}, &reason), SweepPhase::kFailed);
  EXPECT_EQ(reason, "all 2 trials failed");
}

TEST(TrialsTest, FailsWhenMoreTrialsFailedThanAllowed) {
  SweepSpec s;
  s.max_failed_trial_count = 2;
  std::string reason;
  EXPECT_EQ(Decide(s, 10, {F, F, R}, &reason), SweepPhase::kRunning);
  EXPECT_EQ(Decide(s, 10, {F, F, F}, &reason), SweepPhase::kFailed);
  EXPECT_EQ(reason, "3 trials failed (maxFailedTrialCount 2)");
}

}  // namespace
}  // namespace petname::sweep
