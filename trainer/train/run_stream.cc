#include "trainer/train/run_stream.h"

#ifdef PETNAME_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace petname::train {

#ifdef PETNAME_WITH_CUDA
struct RunStream::Guard {
  explicit Guard(c10::cuda::CUDAStream s) : stream(s), guard(s) {}
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard guard;
};

RunStream::RunStream(const torch::Device& device) {
  if (!device.is_cuda()) return;
  // Work queued on other streams before the run finishes first, as torch.cuda.graph does
  // before its warm-up.
  c10::cuda::device_synchronize();
  guard_ = std::make_unique<Guard>(
      c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()));
}

RunStream::~RunStream() {
  if (!guard_) return;
  try {
    guard_->stream.synchronize();
  } catch (const c10::Error&) {
    // A device fault; the step or the check that met it has already reported it.
  }
}
#else
struct RunStream::Guard {};

RunStream::RunStream(const torch::Device& device) { (void)device; }

RunStream::~RunStream() = default;
#endif

}  // namespace petname::train
