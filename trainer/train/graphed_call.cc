#include "trainer/train/graphed_call.h"

#include <utility>

#ifdef PETNAME_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
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
      // Capture on a side stream (the legacy default stream cannot be captured), after the
      // work queued so far has finished, as torch.cuda.graph does.
      c10::cuda::device_synchronize();
      auto graph = std::make_unique<Graph>();
      {
        c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool(false, device_.index()));
        graph->graph.capture_begin();
        work_();
        graph->graph.capture_end();
      }
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
