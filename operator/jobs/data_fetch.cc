#include "operator/jobs/data_fetch.h"

#include "operator/jobs/rank_pod.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kVolume[] = "dataset";
constexpr char kTerminationLog[] = "/dev/termination-log";
// The trainer's resources less the accelerators (resources.acceleratorResource).
Json WithoutAccelerator(Json resources, const std::string& accelerator) {
  for (const char* part : {"limits", "requests"}) {
    if (!resources.contains(part)) continue;
    resources[part].erase(accelerator);
    if (resources[part].empty()) resources.erase(part);
  }
  return resources;
}

}  // namespace

std::vector<std::string> FetchArgs(const api::JobSpec& s) {
  std::vector<std::string> args = {
      "fetch",    "--url",        s.dataset_url,       "--sha256",     s.dataset_sha256,
      "--output", s.dataset_path, "--termination-log", kTerminationLog};
  if (s.dataset_max_bytes > 0) {
    args.insert(args.end(), {"--max-bytes", std::to_string(s.dataset_max_bytes)});
  }
  return args;
}

std::string FetchDir(const api::JobSpec& s) {
  const size_t slash = s.dataset_path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : s.dataset_path.substr(0, slash);
}

void AddDataFetch(const api::JobSpec& s, const Json& resources, Json* volumes, Json* trainer_mounts,
                  Json* init_containers) {
  if (s.dataset_url.empty()) return;
  const Json mount = {{"name", kVolume}, {"mountPath", FetchDir(s)}};
  volumes->push_back({{"name", kVolume}, {"emptyDir", Json::object()}});
  trainer_mounts->push_back(mount);
  Json container = {{"name", kFetchContainer},
                    {"image", s.image},
                    {"imagePullPolicy", s.image_pull_policy},
                    {"command", Json::array({"petname"})},
                    {"args", FetchArgs(s)},
                    {"volumeMounts", Json::array({mount})},
                    {"securityContext", TrainerSecurityContext()},
                    {"terminationMessagePath", kTerminationLog},
                    {"terminationMessagePolicy", "FallbackToLogsOnError"}};
  const Json limited = WithoutAccelerator(resources, s.accelerator_resource);
  if (!limited.empty()) container["resources"] = limited;
  if (!s.env.empty()) container["env"] = s.env;
  init_containers->push_back(container);
}

}  // namespace petname::controller
