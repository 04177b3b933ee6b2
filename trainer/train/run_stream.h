// The CUDA stream a training run works on: one stream, not the legacy default stream, current
// for the whole run on a CUDA device (nothing on other devices).
//
// The rule, from PyTorch's documentation of CUDA graphs ("Whole-network capture", "Usage with
// DistributedDataParallel"): capture cannot happen on the legacy default stream; warm-up runs
// on the side stream that captures; and everything that creates autograd's gradient
// accumulators (there: DDP's construction; here: dist::FlatGradSync's hooks and the first
// backward) must run with that same stream current. Autograd runs each parameter's
// gradient accumulation on the stream that was current when its accumulator was created; an
// accumulator created on the legacy stream makes a captured backward touch the legacy stream,
// which fails the capture (cudaErrorStreamCaptureImplicit, "operation would make the legacy
// stream depend on a capturing blocking stream").
//
// So RunTraining makes this stream current before anything touches the device (the process
// group, the model, the data, the step's hooks, warm-up and captures, validation,
// checkpoints), after the device has finished the work queued so far; GraphedCall captures on
// the current stream and refuses the legacy one. Destruction waits for the stream's work and
// restores the previous stream.
#pragma once

#include <torch/torch.h>

#include <memory>

namespace petname::train {

class RunStream {
 public:
  explicit RunStream(const torch::Device& device);
  ~RunStream();

  RunStream(const RunStream&) = delete;
  RunStream& operator=(const RunStream&) = delete;

 private:
  struct Guard;
  std::unique_ptr<Guard> guard_;  // null on devices other than CUDA
};

}  // namespace petname::train
