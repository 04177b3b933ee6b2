#include "operator/controller/job_status.h"

#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

std::string CondStatus(const Json& status, const std::string& type) {
  Json c = api::FindCondition(status["conditions"], type);
  return c.is_object() ? c["status"].get<std::string>() : "<none>";
}

std::vector<Json> Pods(const std::vector<std::string>& phases) {
  std::vector<Json> pods;
  for (size_t i = 0; i < phases.size(); ++i) {
    pods.push_back(TestPod("rex-rank-" + std::to_string(i), "job-uid", phases[i], true));
  }
  return pods;
}

TEST(JobStatusTest, PendingUntilEveryRankRuns) {
  api::Job job = TestJob(2);
  Json s = ComputeStatus(job, {}, "t0");
  EXPECT_EQ(s["phase"], "Pending");
  EXPECT_EQ(s["startTime"], "t0");
  EXPECT_EQ(s["observedGeneration"], 1);
  EXPECT_EQ(CondStatus(s, "Created"), "<none>");
  s = ComputeStatus(job, Pods({"Running", "Pending"}), "t1");
  EXPECT_EQ(s["phase"], "Pending");
  EXPECT_EQ(s["active"], 2);
  EXPECT_EQ(s["ready"], 1);
  EXPECT_EQ(CondStatus(s, "Created"), "True");
}

TEST(JobStatusTest, RunningThenSucceeded) {
  api::Job job = TestJob(2);
  job.status = ComputeStatus(job, Pods({"Running", "Running"}), "t1");
  EXPECT_EQ(job.status["phase"], "Running");
  EXPECT_EQ(CondStatus(job.status, "Running"), "True");
  job.status = ComputeStatus(job, Pods({"Succeeded", "Running"}), "t2");
  EXPECT_EQ(job.status["phase"], "Running");
  job.status = ComputeStatus(job, Pods({"Succeeded", "Succeeded"}), "t3");
  EXPECT_EQ(job.status["phase"], "Succeeded");
  EXPECT_EQ(job.status["succeeded"], 2);
  EXPECT_EQ(job.status["active"], 0);
  EXPECT_EQ(job.status["completionTime"], "t3");
  EXPECT_EQ(CondStatus(job.status, "Succeeded"), "True");
  EXPECT_EQ(CondStatus(job.status, "Running"), "False");
  EXPECT_EQ(job.status["startTime"], "t1");
}

TEST(JobStatusTest, AFailedRankFailsTheJobForGood) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"restartPolicy": "Never"}}})");
  job.status = ComputeStatus(job, Pods({"Running", "Failed"}), "t1");
  EXPECT_EQ(job.status["phase"], "Failed");
  EXPECT_EQ(job.status["failed"], 1);
  EXPECT_EQ(CondStatus(job.status, "Failed"), "True");
  job.status = ComputeStatus(job, Pods({"Succeeded", "Succeeded"}), "t2");
  EXPECT_EQ(job.status["phase"], "Failed");
  EXPECT_EQ(job.status["completionTime"], "t1");
}

TEST(JobStatusTest, TransitionTimeChangesOnlyWithTheConditionStatus) {
  api::Job job = TestJob(1);
  job.status = ComputeStatus(job, Pods({"Running"}), "t1");
  job.status = ComputeStatus(job, Pods({"Running"}), "t2");
  Json c = api::FindCondition(job.status["conditions"], "Running");
  EXPECT_EQ(c["lastTransitionTime"], "t1");
  Json again = ComputeStatus(job, Pods({"Running"}), "t3");
  EXPECT_EQ(again, job.status);  // stable: no status write needed
}

TEST(JobStatusTest, TerminatingPodsAreNotCounted) {
  api::Job job = TestJob(1);
  std::vector<Json> pods = Pods({"Running"});
  pods[0]["metadata"]["deletionTimestamp"] = "t0";
  Json s = ComputeStatus(job, pods, "t1");
  EXPECT_EQ(s["phase"], "Pending");
  EXPECT_EQ(s["active"], 0);
}

TEST(JobStatusTest, Suspended) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"suspend": true}}})");
  Json s = ComputeStatus(job, {}, "t1");
  EXPECT_EQ(s["phase"], "Suspended");
  EXPECT_EQ(CondStatus(s, "Suspended"), "True");
}

}  // namespace
}  // namespace petname::controller
