#include "trainer/cli/version_line.h"

#ifdef PETNAME_WITH_CUDA
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/csrc/cuda/nccl.h>

#include "trainer/cli/cuda_versions.h"
#endif

namespace petname::cli {

std::string VersionLine() {
#ifdef PETNAME_WITH_CUDA
  // The runtime versions: cudaRuntimeGetVersion and cudnnGetVersion answer without a device.
  long cudart = 0;
  long cudnn = 0;
  try {
    cudart = at::detail::getCUDAHooks().versionCUDART();
    cudnn = at::detail::getCUDAHooks().versionRuntimeCuDNN();
  } catch (const c10::Error&) {
    // Left at 0: printed as "unknown".
  }
  return std::string(PETNAME_VERSION) + " (" +
         DescribeCudaVersions(cudart, cudnn, torch::cuda::nccl::version()) + ")";
#else
  return PETNAME_VERSION;
#endif
}

}  // namespace petname::cli
