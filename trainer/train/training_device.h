// The device a training run works on: the CPU, or with --device cuda the GPU of the rank's
// LOCAL_RANK (dist::CudaDeviceIndex), with the CUDA library modes the options ask for: TF32
// for fp32 GEMMs and cuDNN unless `tf32` is off, and with `deterministic` cuBLAS's fixed
// workspace and cuDNN's deterministic algorithms. FailedPrecondition when that GPU cannot be
// used, saying why (none visible, a CPU-only LibTorch, or no GPU for this LOCAL_RANK).
#pragma once

#include <torch/torch.h>

#include "common/status.h"
#include "trainer/train/train.h"

namespace petname::train {

Status ChooseDevice(const TrainOptions& o, torch::Device* out);

}  // namespace petname::train
