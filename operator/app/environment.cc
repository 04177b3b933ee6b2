#include "operator/app/environment.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/file_util.h"
#include "operator/logging/logging.h"

namespace petname::app {
namespace {

constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

}  // namespace

Status LoadRestConfig(const Options& options, kube::RestConfig* out) {
  std::string path = options.kubeconfig;
  if (path.empty() && std::getenv("KUBECONFIG") != nullptr) path = std::getenv("KUBECONFIG");
  if (!path.empty()) return kube::LoadKubeconfig(path, options.context, out);
  Status in_cluster = kube::InClusterConfig(std::getenv, kServiceAccountDir, out);
  if (in_cluster.code() != Status::Code::kNotFound) return in_cluster;
  const char* home = std::getenv("HOME");
  if (home == nullptr) return Status::InvalidArgument("no kubeconfig: pass --kubeconfig");
  return kube::LoadKubeconfig(std::string(home) + "/.kube/config", options.context, out);
}

Status LoadKueueConfig(const Options& options, controller::KueueConfig* out) {
  *out = controller::DefaultKueueConfig();
  if (options.kueue_config.empty()) return Status::Ok();
  std::string text;
  Status s = ReadFile(options.kueue_config, &text);
  if (s.ok()) s = controller::ParseKueueConfig(text, out);
  if (!s.ok())
    return Status::InvalidArgument("--kueue-config " + options.kueue_config + ": " + s.message());
  return Status::Ok();
}

Surroundings ReadSurroundings() {
  Surroundings where;
  std::string pod_namespace;
  if (ReadFile(std::string(kServiceAccountDir) + "/namespace", &pod_namespace).ok()) {
    where.pod_namespace = pod_namespace;
  }
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  where.identity = std::string(host) + "_" + logging::RandomUuid();
  return where;
}

}  // namespace petname::app
