// A CUDA graph captured once from the work a callable enqueues on one
// stream, instantiated and then replayed: what the graph-mode workloads
// time. Capture never leaves the stream in capture mode, even when the
// callable throws.
//
//   fhe::cuda::CapturedGraph graph = fhe::cuda::CapturedGraph::capture(
//       evaluator.stream(), [&] { evaluator.rotate(in, 1, out); }, "rotate graph");
//   graph.launch(evaluator.stream());  // replays into the same buffers
#pragma once

#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"

namespace fhe::cuda {

class CapturedGraph {
 public:
  CapturedGraph() = default;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  CapturedGraph(CapturedGraph&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  CapturedGraph& operator=(CapturedGraph&& other) noexcept {
    std::swap(exec_, other.exec_);
    return *this;
  }
  ~CapturedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }

  // Captures what `enqueue()` puts on `stream` (thread-local mode: other
  // threads' CUDA calls are not affected) and instantiates it; the work is
  // recorded, not run. `what` names the graph in errors.
  template <typename Enqueue>
  static CapturedGraph capture(cudaStream_t stream, Enqueue&& enqueue, const std::string& what) {
    FHE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), what);
    cudaGraph_t graph = nullptr;
    try {
      enqueue();
    } catch (...) {
      // Ends the capture; its own error (an invalidated capture) is cleared
      // so that the next launch check does not report it as its own.
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      cudaGetLastError();
      throw;
    }
    FHE_CUDA_CHECK(cudaStreamEndCapture(stream, &graph), what);
    CapturedGraph captured;
    const cudaError_t status = cudaGraphInstantiate(&captured.exec_, graph, 0);
    cudaGraphDestroy(graph);
    FHE_CUDA_CHECK(status, what + " instantiate");
    return captured;
  }

  bool captured() const { return exec_ != nullptr; }
  // Enqueues one replay on `stream`.
  void launch(cudaStream_t stream) const { FHE_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace fhe::cuda
