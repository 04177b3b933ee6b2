// The CUDA part of `petname --version` in a CUDA build (pure formatting, no LibTorch).
#pragma once

#include <cstdint>
#include <string>

namespace petname::cli {

// "CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9" from the encodings the libraries report:
//   cudart  cudaRuntimeGetVersion's 1000 * major + 10 * minor (13000 -> 13.0);
//   cudnn   cuDNN 9's 10000 * major + 100 * minor + patch (91900 -> 9.19.0);
//   nccl    LibTorch's torch::cuda::nccl::version(): major << 32 | minor << 16 | patch.
// A value of 0 or below (not known) prints as "unknown".
std::string DescribeCudaVersions(long cudart, long cudnn, std::uint64_t nccl);

}  // namespace petname::cli
