#include "operator/app/options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace petname::app {
namespace {

using Json = nlohmann::json;

// Parses `args` (space-separated, after the program name); *err receives what would go to
// stderr, *out (when given) what would go to stdout.
std::optional<int> Parse(const std::string& args, Options* options, std::string* err,
                         std::string* out = nullptr) {
  std::vector<std::string> words = {"petname-operator"};
  std::istringstream in(args);
  for (std::string word; in >> word;) words.push_back(word);
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  std::ostringstream out_stream, err_stream;
  std::optional<int> code =
      ParseOptions(static_cast<int>(argv.size()), argv.data(), options, out_stream, err_stream);
  *err = err_stream.str();
  if (out != nullptr) *out = out_stream.str();
  return code;
}

TEST(OptionsTest, Defaults) {
  Options o;
  std::string err;
  EXPECT_FALSE(Parse("", &o, &err).has_value());
  EXPECT_EQ(err, "");
  EXPECT_EQ(o.ns, "");
  EXPECT_EQ(o.workers, 4);
  EXPECT_EQ(o.qps, 0);
  EXPECT_EQ(o.burst, 30);
  EXPECT_EQ(o.metrics_bind, ":8080");
  EXPECT_EQ(o.health_bind, ":8081");
  EXPECT_EQ(o.log_level, "info");
  EXPECT_EQ(o.log_format, "text");
  EXPECT_FALSE(o.leader_elect);
  EXPECT_EQ(o.lease_id, "petname-operator");
  EXPECT_EQ(o.progress_interval, "15s");
  EXPECT_EQ(o.max_pods_per_sweep, 256);
  EXPECT_EQ(o.progress_timeout, "");
  EXPECT_EQ(o.progress_max_bytes, 1 << 20);
}

TEST(OptionsTest, ReadsEveryFlag) {
  const std::string args =
      "--kubeconfig /k --context c --namespace ml --workers 8 --qps 50 --burst 100 "
      "--metrics-bind-address 127.0.0.1:9 --health-probe-bind-address 0 --log-level debug "
      "--log-format json --leader-elect --leader-elect-lease-duration 30s "
      "--leader-elect-renew-deadline 20s --leader-elect-retry-period 4s "
      "--leader-elect-namespace ops --leader-elect-id lock --progress-interval 0 "
      "--max-pods-per-sweep 64 --progress-timeout 2s --progress-max-bytes 4096";
  Options o;
  std::string err;
  EXPECT_FALSE(Parse(args, &o, &err).has_value()) << err;
  EXPECT_EQ(o.kubeconfig, "/k");
  EXPECT_EQ(o.context, "c");
  EXPECT_EQ(o.ns, "ml");
  EXPECT_EQ(o.workers, 8);
  EXPECT_EQ(o.qps, 50);
  EXPECT_EQ(o.burst, 100);
  EXPECT_EQ(o.metrics_bind, "127.0.0.1:9");
  EXPECT_EQ(o.health_bind, "0");
  EXPECT_EQ(o.log_level, "debug");
  EXPECT_EQ(o.log_format, "json");
  EXPECT_TRUE(o.leader_elect);
  EXPECT_EQ(o.lease_duration, "30s");
  EXPECT_EQ(o.renew_deadline, "20s");
  EXPECT_EQ(o.retry_period, "4s");
  EXPECT_EQ(o.lease_namespace, "ops");
  EXPECT_EQ(o.lease_id, "lock");
  EXPECT_EQ(o.progress_interval, "0");
  EXPECT_EQ(o.max_pods_per_sweep, 64);
  EXPECT_EQ(o.progress_timeout, "2s");
  EXPECT_EQ(o.progress_max_bytes, 4096);
}

TEST(OptionsTest, UsageErrorsAreOneLineAndExit2) {
  const std::pair<const char*, const char*> cases[] = {
      {"--workers 0", "--workers"},
      {"--log-format xml", "--log-format"},
      {"--log-level loud", "--log-level"},
      {"--qps -1", "--qps"},
      {"--no-such-flag", "--no-such-flag"},
      {"--max-pods-per-sweep 0", "--max-pods-per-sweep"},
      {"--progress-max-bytes 0", "--progress-max-bytes"},
  };
  for (const auto& [args, mentions] : cases) {
    Options o;
    std::string err;
    EXPECT_EQ(Parse(args, &o, &err), 2) << mentions;
    EXPECT_EQ(err.rfind("petname-operator: ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
    EXPECT_NE(err.find(mentions), std::string::npos) << err;
  }
}

TEST(OptionsTest, HelpExits0) {
  Options o;
  std::string err, out;
  EXPECT_EQ(Parse("--help", &o, &err, &out), 0);
  EXPECT_NE(out.find("runs PetNameTrainingJobs as rank pods"), std::string::npos) << out;
  EXPECT_NE(out.find("--leader-elect-namespace"), std::string::npos) << out;
  EXPECT_EQ(err, "");
}

TEST(OptionsTest, ResolvesLogFormatAndProgressInterval) {
  Options o;
  o.log_format = "json";
  Settings s;
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.log_format, logging::Format::kJson);
  EXPECT_EQ(s.progress_interval, std::chrono::seconds(15));
  o.progress_interval = "0";
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.progress_interval.count(), 0);
  o.progress_interval = "2x";
  Status bad = ResolveOptions(o, {}, &s);
  EXPECT_EQ(bad.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(bad.message().find("2x"), std::string::npos) << bad.message();
}

TEST(OptionsTest, NetworkPolicyIsOnByDefaultAndItsMetricsPeersAreChecked) {
  Options o;
  std::string err;
  ASSERT_FALSE(Parse("", &o, &err).has_value()) << err;
  Settings s;
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_TRUE(s.network_policy.enabled);
  EXPECT_EQ(s.network_policy.metrics_from, Json::array());
  ASSERT_FALSE(Parse("--no-network-policy --network-policy-metrics-from "
                     R"([{"namespaceSelector":{"matchLabels":{"team":"obs"}}}])",
                     &o, &err)
                   .has_value())
      << err;
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_FALSE(s.network_policy.enabled);
  EXPECT_EQ(s.network_policy.metrics_from[0]["namespaceSelector"]["matchLabels"]["team"], "obs");
  for (const char* bad : {"{}", "[1]", "[{}]", "[{", ""}) {
    o.network_policy_metrics_from = bad;
    const Status st = ResolveOptions(o, {}, &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("--network-policy-metrics-from must be a JSON list"),
              std::string::npos)
        << st.message();
  }
}

TEST(OptionsTest, ResolvesTheScrapeBoundsWithinTheInterval) {
  Options o;
  Settings s;
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.progress_limits.get.timeout, std::chrono::seconds(5));
  EXPECT_EQ(s.progress_limits.get.max_body_bytes, size_t{1} << 20);
  EXPECT_EQ(s.progress_limits.workers, 4);
  o.progress_timeout = "30s";
  o.progress_max_bytes = 4096;
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.progress_limits.get.timeout, std::chrono::seconds(15));  // at most the interval
  EXPECT_EQ(s.progress_limits.get.max_body_bytes, 4096u);
  o.progress_interval = "2s";
  o.progress_timeout = "500ms";
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.progress_limits.get.timeout, std::chrono::milliseconds(500));
  for (const char* bad : {"0s", "soon"}) {
    o.progress_timeout = bad;
    Status st = ResolveOptions(o, {}, &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find(bad), std::string::npos) << st.message();
  }
}

TEST(OptionsTest, LeaseNamespaceFromTheFlagThePodOrTheWatchedNamespace) {
  Options o;
  o.leader_elect = true;
  const Surroundings in_pod{"operators", "host_1"};
  Settings s;
  Status none = ResolveOptions(o, {}, &s);
  EXPECT_EQ(none.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(none.message().find("--leader-elect-namespace"), std::string::npos);

  o.ns = "ml";
  ASSERT_TRUE(ResolveOptions(o, {}, &s).ok());
  EXPECT_EQ(s.election.ns, "ml");
  ASSERT_TRUE(ResolveOptions(o, in_pod, &s).ok());
  EXPECT_EQ(s.election.ns, "operators");
  o.lease_namespace = "ops";
  ASSERT_TRUE(ResolveOptions(o, in_pod, &s).ok());
  EXPECT_EQ(s.election.ns, "ops");
  EXPECT_EQ(s.election.name, "petname-operator");
  EXPECT_EQ(s.election.identity, "host_1");
  EXPECT_EQ(s.election.lease_duration, std::chrono::seconds(15));
  EXPECT_EQ(s.election.renew_deadline, std::chrono::seconds(10));
  EXPECT_EQ(s.election.retry_period, std::chrono::seconds(2));
}

TEST(OptionsTest, LeaderElectionTimingsAreChecked) {
  Options o;
  o.leader_elect = true;
  o.lease_namespace = "ops";
  o.lease_duration = "5s";
  Settings s;
  Status st = ResolveOptions(o, {}, &s);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("greater than --leader-elect-renew-deadline"), std::string::npos);
  o.lease_duration = "15s";
  o.retry_period = "2x";
  EXPECT_NE(ResolveOptions(o, {}, &s).message().find("2x"), std::string::npos);
}

TEST(OptionsTest, WithoutLeaderElectionNoLeaseSettingsAreChecked) {
  Options o;
  o.lease_duration = "nonsense";
  Settings s;
  EXPECT_TRUE(ResolveOptions(o, {}, &s).ok());
}

}  // namespace
}  // namespace petname::app
