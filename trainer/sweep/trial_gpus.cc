#include "trainer/sweep/trial_gpus.h"

#include <algorithm>
#include <sstream>

namespace petname::sweep {

std::vector<std::string> VisibleGpus(const std::optional<std::string>& cuda_visible_devices,
                                     int device_count) {
  std::vector<std::string> out;
  if (!cuda_visible_devices.has_value()) {
    for (int i = 0; i < device_count; ++i) out.push_back(std::to_string(i));
    return out;
  }
  std::istringstream entries(*cuda_visible_devices);
  for (std::string entry;
       static_cast<int>(out.size()) < device_count && std::getline(entries, entry, ',');) {
    out.push_back(entry);
  }
  return out;
}

Status GpuParallel(int requested, int wanted, int gpus_per_trial, int visible_gpus, int* parallel) {
  const int per = std::max(1, gpus_per_trial);
  const int fit = visible_gpus / per;
  const std::string need = std::to_string(per) + " GPU" + (per == 1 ? "" : "s") + " per trial, " +
                           std::to_string(visible_gpus) + " visible";
  if (fit == 0) {
    return Status::InvalidArgument(
        "sweep: the trials need GPUs but " +
        (visible_gpus == 0 ? std::string("no GPU is visible") : "the visible GPUs hold no trial") +
        " (" + need + ")");
  }
  if (requested > fit) {
    return Status::InvalidArgument("--parallel " + std::to_string(requested) +
                                   ": more GPU trials at once than the GPUs hold (" + need +
                                   "; at most --parallel " + std::to_string(fit) + ")");
  }
  *parallel = requested > 0 ? requested : std::min(std::max(1, wanted), fit);
  return Status::Ok();
}

int LowestFreeSlot(const std::vector<int>& taken, int parallel) {
  for (int slot = 0; slot < parallel; ++slot) {
    if (std::find(taken.begin(), taken.end(), slot) == taken.end()) return slot;
  }
  return -1;
}

std::string SlotGpus(const std::vector<std::string>& visible, int slot, int gpus_per_trial) {
  std::string out;
  for (int i = 0; i < gpus_per_trial; ++i) {
    if (i > 0) out += ",";
    out += visible[static_cast<size_t>(slot) * static_cast<size_t>(gpus_per_trial) +
                   static_cast<size_t>(i)];
  }
  return out;
}

}  // namespace petname::sweep
