#include "operator/kube/rest_config.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "common/file_util.h"

namespace petname::kube {
namespace {

// base64 of "CA-PEM", "CERT-PEM", "KEY-PEM".
constexpr char kKubeconfig[] = R"(apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://10.0.0.1:6443"}
- name: test
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
users:
- name: admin
  user:
    client-certificate-data: Q0VSVC1QRU0=
    client-key-data: S0VZLVBFTQ==
- name: bot
  user: {token: s3cret}
contexts:
- name: admin@test
  context: {cluster: test, user: admin, namespace: team}
- name: bot@other
  context: {cluster: other, user: bot}
current-context: admin@test
)";

TEST(RestConfigTest, CurrentContextWithEmbeddedData) {
  RestConfig cfg;
  ASSERT_TRUE(ParseKubeconfig(kKubeconfig, "/nowhere", "", &cfg).ok());
  EXPECT_EQ(cfg.server, "https://127.0.0.1:6443");
  EXPECT_EQ(cfg.ca_pem, "CA-PEM");
  EXPECT_EQ(cfg.client_cert_pem, "CERT-PEM");
  EXPECT_EQ(cfg.client_key_pem, "KEY-PEM");
  EXPECT_EQ(cfg.namespace_, "team");
  EXPECT_FALSE(cfg.insecure_skip_tls_verify);
}

TEST(RestConfigTest, ExplicitContextWithToken) {
  RestConfig cfg;
  ASSERT_TRUE(ParseKubeconfig(kKubeconfig, "/nowhere", "bot@other", &cfg).ok());
  EXPECT_EQ(cfg.server, "https://10.0.0.1:6443");
  EXPECT_EQ(cfg.token, "s3cret");
  EXPECT_TRUE(cfg.ca_pem.empty());
}

TEST(RestConfigTest, FilePathsAreResolvedAgainstTheKubeconfigDirectory) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "kubeconfig_files";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomically((dir / "ca.crt").string(), "FILE-CA").ok());
  ASSERT_TRUE(
      WriteFileAtomically((dir / "kubeconfig").string(),
                          "clusters: [{name: c, cluster: {server: 'https://h:1', "
                          "certificate-authority: ca.crt, insecure-skip-tls-verify: true}}]\n"
                          "users: [{name: u, user: {tokenFile: /var/tok}}]\n"
                          "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                          "current-context: x\n")
          .ok());
  RestConfig cfg;
  Status s = LoadKubeconfig((dir / "kubeconfig").string(), "", &cfg);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(cfg.ca_pem, "FILE-CA");
  EXPECT_EQ(cfg.token_file, "/var/tok");
  EXPECT_TRUE(cfg.insecure_skip_tls_verify);
}

TEST(RestConfigTest, BadInputIsAClearError) {
  const std::map<std::string, std::string> cases = {
      {"[not, a, map]", "not a YAML map"},
      {"key: [unclosed", "not valid YAML"},
      {"clusters: []\n", "no current-context"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n", "no cluster named"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {}}]\n",
       "no server"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
       "users: [{name: u, user: {client-key-data: S0VZ}}]\n",
       "without a"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h', certificate-authority: "
       "/missing/ca}}]\n",
       "certificate-authority"},
  };
  for (const auto& [yaml, want] : cases) {
    RestConfig cfg;
    Status s = ParseKubeconfig(yaml, "/", "", &cfg);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << yaml;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
  RestConfig cfg;
  EXPECT_EQ(LoadKubeconfig("/no/such/kubeconfig", "", &cfg).code(), Status::Code::kInvalidArgument);
}

TEST(RestConfigTest, InClusterReadsServiceAccountFiles) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "sa";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomically((dir / "token").string(), "tok").ok());
  ASSERT_TRUE(WriteFileAtomically((dir / "ca.crt").string(), "ca").ok());
  ASSERT_TRUE(WriteFileAtomically((dir / "namespace").string(), "jobs").ok());
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  auto getenv = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  RestConfig cfg;
  ASSERT_TRUE(InClusterConfig(getenv, dir.string(), &cfg).ok());
  EXPECT_EQ(cfg.server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg.token, "tok");
  EXPECT_EQ(cfg.token_file, (dir / "token").string());
  EXPECT_EQ(cfg.ca_pem, "ca");
  EXPECT_EQ(cfg.namespace_, "jobs");
  env.clear();
  EXPECT_EQ(InClusterConfig(getenv, dir.string(), &cfg).code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace petname::kube
