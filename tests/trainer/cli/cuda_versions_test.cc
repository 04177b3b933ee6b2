#include "trainer/cli/cuda_versions.h"

#include <gtest/gtest.h>

namespace petname::cli {
namespace {

TEST(CudaVersionsTest, DecodesTheLibrariesEncodings) {
  EXPECT_EQ(DescribeCudaVersions(13000, 91900, (2ULL << 32U) | (28ULL << 16U) | 9ULL),
            "CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9");
  EXPECT_EQ(DescribeCudaVersions(12080, 90100, (2ULL << 32U) | (26ULL << 16U) | 2ULL),
            "CUDA 12.8, cuDNN 9.1.0, NCCL 2.26.2");
}

TEST(CudaVersionsTest, UnknownValuesSaySo) {
  EXPECT_EQ(DescribeCudaVersions(0, -1, 0), "CUDA unknown, cuDNN unknown, NCCL unknown");
}

}  // namespace
}  // namespace petname::cli
