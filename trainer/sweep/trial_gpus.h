// The GPUs of `petname sweep`'s concurrent trials. A GPU trial of R ranks runs `petname train
// --nproc R --device cuda`, whose rank k uses cuda:k, so it needs R GPUs of its own. Trial slot s
// (0 <= s < parallel; a running trial holds one slot, the lowest free one) gets the visible GPUs
// s*R .. s*R+R-1, passed to the trial's process as CUDA_VISIBLE_DEVICES. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::sweep {

// The GPUs this process sees, as CUDA_VISIBLE_DEVICES entries for a child process: the first
// `device_count` entries of `cuda_visible_devices` (indices, UUIDs or MIG ids) when it is set,
// else "0" .. device_count-1. `device_count` is what CUDA reports (torch::cuda::device_count()).
std::vector<std::string> VisibleGpus(const std::optional<std::string>& cuda_visible_devices,
                                     int device_count);

// How many GPU trials of `gpus_per_trial` GPUs each run at once on `visible_gpus` GPUs.
// `requested` is --parallel (0: not given), `wanted` the sweep's own choice (parallelTrialCount,
// at most the CPUs): without --parallel it is lowered to what the GPUs hold. InvalidArgument when
// the GPUs hold no trial, or fewer than --parallel.
Status GpuParallel(int requested, int wanted, int gpus_per_trial, int visible_gpus, int* parallel);

// The lowest slot in 0 .. parallel-1 that `taken` does not hold; -1 when all are taken.
int LowestFreeSlot(const std::vector<int>& taken, int parallel);

// CUDA_VISIBLE_DEVICES of trial slot `slot`: its `gpus_per_trial` entries of `visible`, joined by
// commas. `visible` must hold (slot + 1) * gpus_per_trial entries (GpuParallel checked that).
std::string SlotGpus(const std::vector<std::string>& visible, int slot, int gpus_per_trial);

}  // namespace petname::sweep
