// A piece of device work run many times with the same shapes: on a CUDA device it runs
// eagerly the first time (which also creates the library handles and workspaces it needs),
// is then captured once into a CUDA graph, and every later Run() replays the graph: one launch
// instead of hundreds. On other devices, or in builds without CUDA, every Run() is eager.
//
// The work must be capturable: device ops only (no host sync, no host reads of device values),
// reading and writing tensors whose storage stays put between calls (inputs are copied into
// fixed buffers before Run; outputs are tensors the work assigns, which keep their storage in
// the graph's private memory pool and are overwritten by each replay). On CUDA, Run() must be
// called with the run's stream current (run_stream.h): the eager first run and the capture
// happen on it, and capturing on the legacy default stream is refused with an error.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>

namespace petname::train {

class GraphedCall {
 public:
  GraphedCall(torch::Device device, std::function<void()> work);
  ~GraphedCall();

  GraphedCall(const GraphedCall&) = delete;
  GraphedCall& operator=(const GraphedCall&) = delete;

  void Run();

  // Whether Run() replays a graph from now on.
  bool captured() const { return graph_ != nullptr; }

 private:
  struct Graph;
  torch::Device device_;
  std::function<void()> work_;
  int64_t runs_ = 0;
  std::unique_ptr<Graph> graph_;
};

}  // namespace petname::train
