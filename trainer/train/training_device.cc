#include "trainer/train/training_device.h"

#include <cstdlib>

#include "trainer/distributed/rank_env.h"

namespace petname::train {

Status ChooseDevice(const TrainOptions& o, torch::Device* out) {
  if (o.device != "cuda") {
    *out = torch::Device(torch::kCPU);
    return Status::Ok();
  }
  if (!torch::cuda::is_available()) {
#ifdef PETNAME_WITH_CUDA
    return Status::FailedPrecondition("--device cuda: no CUDA GPU is visible to this process");
#else
    return Status::FailedPrecondition("--device cuda: this build has no CUDA (CPU-only LibTorch)");
#endif
  }
  int index = 0;
  PETNAME_RETURN_IF_ERROR(
      dist::CudaDeviceIndex(o.rank, static_cast<int>(torch::cuda::device_count()), &index));
  *out = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  at::globalContext().setAllowTF32CuBLAS(o.tf32);
  at::globalContext().setAllowTF32CuDNN(o.tf32);
  if (o.deterministic) {
    // cuBLAS is deterministic with a fixed workspace (read when its first handle is made, so
    // before any GEMM), which PyTorch's reproducibility notes also ask of cuDNN's LSTM.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
  return Status::Ok();
}

}  // namespace petname::train
