#include "trainer/train/graphed_call.h"

#include <utility>

#ifdef PETNAME_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace petname::train {

#ifdef PETNAME_WITH_CUDA
struct GraphedCall::Graph {
  at::cuda::CUDAGraph graph;
};
#else
struct GraphedCall::Graph {};
#endif

GraphedCall::GraphedCall(torch::Device device, std::function<void()> work)
    : device_(device), work_(std::move(work)) {}

GraphedCall::~GraphedCall() = default;

void GraphedCall::Run() {
#ifdef PETNAME_WITH_CUDA
  if (device_.is_cuda() && runs_ > 0) {
    if (!graph_) {
      // Capture on the run's stream (run_stream.h), after the work queued so far has finished,
      // as torch.cuda.graph does: the stream current during warm-up, and when the step's
      // gradient accumulators were made, must be the capturing one.
      TORCH_CHECK(c10::cuda::getCurrentCUDAStream(device_.index()) !=
                      c10::cuda::getDefaultCUDAStream(device_.index()),
                  "GraphedCall: CUDA graphs are captured on the run's stream (RunStream), "
                  "not on the legacy default stream");
      c10::cuda::device_synchronize();
      auto graph = std::make_unique<Graph>();
      graph->graph.capture_begin();
      work_();
      graph->graph.capture_end();
      graph_ = std::move(graph);
    }
    graph_->graph.replay();
    ++runs_;
    return;
  }
#endif
  work_();
  ++runs_;
}

}  // namespace petname::train
