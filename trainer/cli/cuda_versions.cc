#include "trainer/cli/cuda_versions.h"

namespace petname::cli {

std::string DescribeCudaVersions(long cudart, long cudnn, std::uint64_t nccl) {
  std::string out = "CUDA ";
  out += cudart > 0 ? std::to_string(cudart / 1000) + "." + std::to_string(cudart % 1000 / 10)
                    : "unknown";
  out += ", cuDNN ";
  out += cudnn > 0 ? std::to_string(cudnn / 10000) + "." + std::to_string(cudnn % 10000 / 100) +
                         "." + std::to_string(cudnn % 100)
                   : "unknown";
  out += ", NCCL ";
  out += nccl > 0 ? std::to_string(nccl >> 32U) + "." + std::to_string((nccl >> 16U) & 0xffffU) +
                        "." + std::to_string(nccl & 0xffffU)
                  : "unknown";
  return out;
}

}  // namespace petname::cli
