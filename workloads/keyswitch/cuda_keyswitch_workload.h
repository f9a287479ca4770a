// Level-specific key switching on one CUDA device (SPEC section 7, issue
// 7): the operations, inputs and reference of the CPU KeySwitchWorkload
// (the shared KeySwitchProblem), run through fhe::CudaEvaluator with
//   - a memory plan (keys dominate) checked against the free device memory
//     before anything is allocated, refused with a DeviceError naming it;
//   - every level's inputs resident on the device, prepared once: the fresh
//     ciphertext uploaded and its 3-part tensor product computed there;
//   - one preallocated output buffer, so one operation is exactly one key
//     switch enqueued on the evaluator's stream: relinearize(product) or
//     rotate(fresh, step);
//   - graph mode: each operation captured once into its own CUDA graph
//     (on its first graph launch) and replayed; eager mode enqueues the
//     same call. Both write the same words.
//
//   CudaKeySwitchWorkload workload(engine, {0, 17, 33});  // engine on cuda:N, keys for step 1
//   double ms = workload.time_launch_ms(0, /*graph=*/true);  // relinearize@level0
//   double error = workload.max_abs_error(workload.operations()[0], workload.download_output());
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "evaluator/cuda/cuda_evaluator.h"
#include "fhe/ckks/engine.h"
#include "fhe/cuda/graph.h"
#include "workloads/keyswitch/keyswitch_problem.h"
#include "workloads/memory_plan.h"

namespace fhe::workloads {

struct CudaKeySwitchOptions {
  // Test hook: the free device bytes the memory plan is checked against
  // (0 = ask cudaMemGetInfo).
  std::size_t assume_free_bytes = 0;
};

class CudaKeySwitchWorkload {
 public:
  // The engine must be on CUDA with the relinearization key and the Galois
  // key of `rotation_step` (InvalidArgument otherwise, as for a level out of
  // range); DeviceError when plan_memory exceeds the free device memory.
  // Then encrypts the inputs on the host (the engine's next encryptions, as
  // the CPU workload does), uploads keys and inputs and computes the
  // products on the device.
  CudaKeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step = 1,
                        CudaKeySwitchOptions options = {});
  ~CudaKeySwitchWorkload();
  CudaKeySwitchWorkload(const CudaKeySwitchWorkload&) = delete;
  CudaKeySwitchWorkload& operator=(const CudaKeySwitchWorkload&) = delete;

  // What the constructor allocates on the device: the evaluator's keys,
  // workspaces and per-level constants (CudaEvaluator::estimate_memory),
  // each level's fresh (2-part) and product (3-part) buffers and the
  // output, each sized for level 0 (a CudaCiphertext's capacity).
  static MemoryPlan plan_memory(const CkksEngine& engine, const std::vector<int>& levels);

  const KeySwitchProblem& problem() const { return problem_; }
  const std::vector<KeySwitchOperation>& operations() const { return problem_.operations(); }
  const MemoryPlan& memory_plan() const { return plan_; }
  // The stream every launch is ordered on.
  cudaStream_t stream() const { return evaluator_->stream(); }

  // Enqueues operations()[operation] into the output buffer: a replay of its
  // graph (captured on its first graph launch) or the eager call. Inputs are
  // never modified, so launches need no staging.
  void launch(std::size_t operation, bool graph);
  // launch() between two CUDA events on stream() (a first graph capture
  // happens before the start event); waits and returns the device
  // milliseconds.
  double time_launch_ms(std::size_t operation, bool graph);
  // The output of the last launch (synchronises).
  Ciphertext download_output() const;
  double max_abs_error(const KeySwitchOperation& op, const Ciphertext& output) const {
    return problem_.max_abs_error(op, output);
  }

 private:
  struct LevelBuffers {
    CudaCiphertext fresh;    // 2 parts at the level
    CudaCiphertext product;  // 3 parts: fresh * fresh
  };
  // A captured operation and the output metadata its replay stands for
  // (the graph writes words only; shape and scale live on the host).
  struct Replay {
    cuda::CapturedGraph graph;
    std::size_t parts = 0;
    int level = 0;
    double scale = 1;
  };
  const KeySwitchOperation& operation_at(std::size_t operation) const;  // InvalidArgument when out of range
  // The operation's replay, captured on first use.
  const Replay& captured(std::size_t operation);
  void enqueue(const KeySwitchOperation& op);

  const CkksEngine& engine_;
  MemoryPlan plan_;  // checked before any other member is built
  KeySwitchProblem problem_;
  std::unique_ptr<CudaEvaluator> evaluator_;
  std::vector<LevelBuffers> levels_;  // in problem_.inputs() order
  CudaCiphertext output_;
  std::vector<Replay> replays_;  // per operation
};

}  // namespace fhe::workloads
