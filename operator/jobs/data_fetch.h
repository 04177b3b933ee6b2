// The fetch-data init container: with spec.dataset.url, every rank pod first downloads the
// dataset with `petname fetch` (trainer/fetch/fetch.h) into an emptyDir volume named "dataset",
// mounted at the directory of dataset.path (api::DefaultFetchPath when unset) in the init
// container and the trainer container. Pure.
//
// The init container runs the job's image and imagePullPolicy, command ["petname"], args
// (an argv list, no shell) `fetch --url URL --sha256 HEX --output PATH --termination-log
// /dev/termination-log [--max-bytes B]`, the spec's env (proxies: HTTPS_PROXY, NO_PROXY), the
// trainer's cpu and memory (no accelerator) and its securityContext (read-only root filesystem: it
// writes only to the volume). Its error line is its termination message, so a failed download
// or a wrong checksum fails the job with reason DataFetchFailed naming it (pod_failure.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

inline constexpr char kFetchContainer[] = "fetch-data";

// The arguments after the command `petname` of the init container.
std::vector<std::string> FetchArgs(const api::JobSpec& spec);

// The directory of dataset.path: the dataset volume's mountPath with a URL.
std::string FetchDir(const api::JobSpec& spec);

// With dataset.url: appends the dataset emptyDir to `volumes`, its mount to `trainer_mounts`
// and the fetch-data container to `init_containers`; `resources` are the trainer's, whose
// accelerator limit (resources.acceleratorResource) is left out. Without a URL: nothing.
void AddDataFetch(const api::JobSpec& spec, const nlohmann::json& resources,
                  nlohmann::json* volumes, nlohmann::json* trainer_mounts,
                  nlohmann::json* init_containers);

}  // namespace petname::controller
