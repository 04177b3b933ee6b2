// spec.dataset.url end to end through the pure parts: the spec's checks and defaults, the
// fetch-data init container in the desired pods, and a failed fetch failing the job.
#include "operator/jobs/data_fetch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "operator/api/conditions.h"
#include "operator/jobs/desired.h"
#include "operator/jobs/lifecycle.h"
#include "operator/jobs/pod_failure.h"
#include "operator/jobs/rank_pod.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

const std::string kSum(64, 'a');

Json UrlJob(const std::string& dataset) {
  Json obj = Json::parse(R"({"apiVersion": "petname.dev/v1alpha1",
    "kind": "PetNameTrainingJob", "metadata": {"name": "rex", "namespace": "ml",
    "uid": "job-uid"}, "spec": {"image": "petname:1", "replicas": 2}})");
  obj["spec"]["dataset"] = Json::parse(dataset);
  return obj;
}

Status Parse(const std::string& dataset, api::Job* job) {
  return api::JobFromJson(UrlJob(dataset), job);
}

const Json* Find(const Json& list, const std::string& name) {
  for (const Json& item : list) {
    if (item.value("name", "") == name) return &item;
  }
  return nullptr;
}

TEST(DataFetchSpecTest, PathDefaultsUnderTheFetchDirectory) {
  api::Job job;
  ASSERT_TRUE(Parse(R"({"url": "https://u:p@data.example/pets/seattle.csv?sig=x", "sha256": ")" +
                        kSum + "\"}",
                    &job)
                  .ok());
  EXPECT_EQ(job.spec.dataset_path, "/var/petname/data/seattle.csv");
  ASSERT_TRUE(Parse(R"({"url": "https://data.example/", "sha256": ")" + kSum + "\"}", &job).ok());
  EXPECT_EQ(job.spec.dataset_path, "/var/petname/data/data");
}

TEST(DataFetchSpecTest, RefusesWhatTheOperatorCannotFetch) {
  api::Job job;
  const std::string sum = "\"sha256\": \"" + kSum + "\"";
  struct Case {
    std::string dataset;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"url": "file:///etc/passwd", )" + sum + "}", "spec.dataset.url"},
      {R"({"url": "https://h/x.csv"})", "spec.dataset.sha256"},
      {R"({"url": "https://h/x.csv", "sha256": "ABC"})", "spec.dataset.sha256"},
      {R"({"path": "/data/x.csv", )" + sum + "}", "only used with url"},
      {R"({"url": "https://h/x.csv", "volume": {"claimName": "c", "mountPath": "/data"}, )" + sum +
           "}",
       "mutually exclusive"},
      {R"({"url": "https://h/x.csv", "path": "/x.csv", )" + sum + "}", "spec.dataset.path"},
      {R"({"url": "https://h/x.csv", "path": "/checkpoints/x.csv", )" + sum + "}",
       "checkpoint.path"},
  };
  for (const Case& c : cases) {
    Status st = Parse(c.dataset, &job);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.dataset;
    EXPECT_NE(st.message().find(c.message), std::string::npos) << c.dataset << ": " << st.message();
  }
}

TEST(DataFetchTest, EveryRankPodFetchesIntoAnEmptyDirBeforeTraining) {
  api::Job job;
  ASSERT_TRUE(Parse(R"({"url": "https://data.example/pets.csv", "sha256": ")" + kSum +
                        R"(", "path": "/srv/in/pets.csv", "maxBytes": 5000000})",
                    &job)
                  .ok());
  job.spec.cpu = "2";
  job.spec.env = Json::parse(R"([{"name": "HTTPS_PROXY", "value": "http://proxy:3128"}])");
  const DesiredState d = Desired(job);
  ASSERT_EQ(d.pods.size(), 2u);
  for (const Json& pod : d.pods) {
    const Json& spec = pod["spec"];
    const Json* volume = Find(spec["volumes"], "dataset");
    ASSERT_NE(volume, nullptr);
    EXPECT_EQ((*volume)["emptyDir"], Json::object());
    ASSERT_EQ(spec["initContainers"].size(), 1u);
    const Json& init = spec["initContainers"][0];
    EXPECT_EQ(init["name"], "fetch-data");
    EXPECT_EQ(init["image"], "petname:1");
    EXPECT_EQ(init["command"], Json::array({"petname"}));
    EXPECT_EQ(init["args"],
              Json::array({"fetch", "--url", "https://data.example/pets.csv", "--sha256", kSum,
                           "--output", "/srv/in/pets.csv", "--termination-log",
                           "/dev/termination-log", "--max-bytes", "5000000"}));
    EXPECT_EQ(init["volumeMounts"],
              Json::parse(R"([{"name": "dataset", "mountPath": "/srv/in"}])"));
    EXPECT_EQ(init["securityContext"], TrainerSecurityContext());
    EXPECT_EQ(init["terminationMessagePolicy"], "FallbackToLogsOnError");
    EXPECT_EQ(init["resources"]["limits"]["cpu"], "2");
    EXPECT_EQ(init["env"], job.spec.env);
    const Json& trainer = spec["containers"][0];
    const Json* mount = Find(trainer["volumeMounts"], "dataset");
    ASSERT_NE(mount, nullptr);
    EXPECT_EQ((*mount)["mountPath"], "/srv/in");
    const std::vector<std::string> args = trainer["args"];
    EXPECT_EQ(args[2], "/srv/in/pets.csv");  // train --data PATH
    const auto it = std::find(args.begin(), args.end(), "--max-data-bytes");
    ASSERT_NE(it, args.end());
    EXPECT_EQ(*(it + 1), "5000000");
  }
}

TEST(DataFetchTest, NoGpuForTheInitContainerAndNothingWithoutAUrl) {
  api::Job job;
  ASSERT_TRUE(Parse(R"({"url": "https://h/x.csv", "sha256": ")" + kSum + "\"}", &job).ok());
  job.spec.gpus_per_replica = 1;
  job.spec.backend = "nccl";
  const Json pod = Desired(job).pods[0];
  EXPECT_FALSE(pod["spec"]["initContainers"][0].contains("resources"));
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  const Json plain = Desired(TestJob(1)).pods[0];
  EXPECT_FALSE(plain["spec"].contains("initContainers"));
  EXPECT_EQ(Find(plain["spec"]["volumes"], "dataset"), nullptr);
}

TEST(DataFetchTest, ATemplateInitContainerNamedFetchDataConflicts) {
  api::Job job;
  Json obj = UrlJob(R"({"url": "https://h/x.csv", "sha256": ")" + kSum + "\"}");
  obj["spec"]["template"] = Json::parse(R"({"spec": {"initContainers": [{"name": "fetch-data",
    "image": "x"}]}})");
  ASSERT_TRUE(api::JobFromJson(obj, &job).ok());
  EXPECT_FALSE(CheckPodTemplate(job).ok());
}

// A rank pod whose fetch-data init container terminated with `exit_code` and `message`.
Json FetchFailedPod(int rank, int exit_code, const std::string& message) {
  Json pod = TestPod("rex-rank-" + std::to_string(rank), "job-uid", "Failed");
  pod["metadata"]["labels"] = {{"petname.dev/rank", std::to_string(rank)}};
  pod["status"]["initContainerStatuses"] = {
      {{"name", "fetch-data"},
       {"state",
        {{"terminated", {{"exitCode", exit_code}, {"reason", "Error"}, {"message", message}}}}}}};
  pod["status"]["containerStatuses"] = {
      {{"name", "trainer"}, {"state", {{"waiting", {{"reason", "PodInitializing"}}}}}}};
  return pod;
}

TEST(DataFetchFailureTest, AFailedFetchIsNamedAndNeverRetried) {
  const std::string line =
      "petname: error: fetch https://h/x.csv: sha256 mismatch: expected aaa, got bbb";
  RankFailure f;
  ASSERT_TRUE(PodFailed(api::PodFromJson(FetchFailedPod(1, 1, line + "\n")), &f));
  EXPECT_EQ(f.init_container, "fetch-data");
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_EQ(f.message, line);
  EXPECT_TRUE(DataFetchFailed(f));
  for (const char* policy : {"OnFailure", "ExitCode", "Never"}) {
    EXPECT_FALSE(Retryable(policy, f)) << policy;
  }
  EXPECT_EQ(Describe(f, 1),
            "rank 1 (pod rex-rank-1) failed: init container fetch-data: exit "
            "code 1 (Error): " +
                line);
  // Killed (OOM, a signal) or evicted: not the download's verdict, the restart policy decides.
  ASSERT_TRUE(PodFailed(api::PodFromJson(FetchFailedPod(1, 137, "")), &f));
  EXPECT_FALSE(DataFetchFailed(f));
  EXPECT_TRUE(Retryable("OnFailure", f));
}

TEST(DataFetchFailureTest, TheJobFailsAtOnceWithReasonDataFetchFailed) {
  api::Job job;
  ASSERT_TRUE(Parse(R"({"url": "https://h/x.csv", "sha256": ")" + kSum + "\"}", &job).ok());
  const std::string line = "petname: error: fetch https://h/x.csv: sha256 mismatch: expected " +
                           kSum + ", got " + std::string(64, 'b');
  std::vector<api::ObservedPod> pods = {
      api::PodFromJson(FetchFailedPod(0, 1, line)),
      api::PodFromJson(TestPod("rex-rank-1", "job-uid", "Pending"))};
  pods[1].rank = 1;
  const Plan p = ComputeStatus(job, pods, PodGroupState::kNotWanted, 1'800'000'000);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(p.status.restarts, 0);
  const api::Condition* failed = api::FindCondition(p.status.conditions, api::kFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->reason, "DataFetchFailed");
  EXPECT_NE(failed->message.find("sha256 mismatch: expected " + kSum), std::string::npos)
      << failed->message;
}

}  // namespace
}  // namespace petname::controller
