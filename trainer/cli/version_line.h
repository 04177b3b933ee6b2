// What `petname --version` prints: the project version, and in a CUDA build (PETNAME_WITH_CUDA)
// the versions of the CUDA runtime, cuDNN and NCCL that LibTorch reports, e.g.
//   0.1.0 (CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9)
// Needs no GPU: the versions come from the libraries, not from a device.
#pragma once

#include <string>

namespace petname::cli {

std::string VersionLine();

}  // namespace petname::cli
