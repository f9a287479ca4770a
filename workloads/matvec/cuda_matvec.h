// The encrypted d x d matrix-vector product on one CUDA device (SPEC
// section 7, issue 7): the same diagonal and BSGS methods (hoisted; batch,
// loop or lazy-moddown policy) as the CPU MatvecWorkload, with
//   - the diagonals encoded once on the host and uploaded once;
//   - a FIXED device input buffer and every intermediate preallocated, so
//     the whole product is a fixed enqueue sequence;
//   - rotation parallelism: the steps are partitioned (partition_range)
//     across `workers` CUDA streams, fork/join with events, each worker an
//     evaluator with its own workspaces and all of them sharing ONE set of
//     device keys;
//   - graph mode: that sequence captured once into a cudaGraphExec; a run
//     stages the input into the fixed buffer and launches the graph. Eager
//     mode enqueues the same sequence without capture;
//   - a share (CudaMatvecOptions::share): one rank's part of the product
//     over several GPUs (multi_gpu_matvec.h reduces the partial sums).
//
//   CudaMatvec matvec(engine, config);   // engine on cuda:N with matvec_rotation_steps keys
//   matvec.stage(engine.encrypt_message(matvec.problem().input_slots()));
//   matvec.launch(/*graph=*/true);       // enqueues only
//   double error = matvec.max_abs_error(matvec.download_result());
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "evaluator/cuda/cuda_evaluator.h"
#include "fhe/ckks/engine.h"
#include "workloads/matvec/matvec_config.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/multi_gpu_share.h"
#include "workloads/memory_plan.h"

namespace fhe::workloads {

struct CudaMatvecOptions {
  // Test hook: the free device bytes the memory plan is checked against
  // (0 = ask cudaMemGetInfo).
  std::size_t assume_free_bytes = 0;
  // The rank's share of a multi-GPU product (multi_gpu_share.h): only its
  // steps are computed (on `workers` streams) and the result is its partial
  // sum; the engine needs only share_rotation_steps. {0, 1}: the whole product.
  MatvecShare share;
  // Device keys another CudaMatvec on this device already holds
  // (other.evaluator().keys()) for an engine that adopt_keys-ed this one's
  // key set, e.g. the application suite's other backends: used instead of
  // uploading 48 GiB again, and not counted against the free memory.
  std::shared_ptr<const cuda::DeviceKeys> shared_keys;
};

class CudaMatvec {
 public:
  // Validates the configuration, checks plan_matvec_memory against the free
  // device memory (DeviceError naming the largest configuration that fits)
  // before allocating, then uploads keys and diagonals and allocates every
  // buffer. The engine must be on CUDA with the Galois keys of
  // matvec_rotation_steps(config) (of a share: share_rotation_steps, and
  // its share's plan_share_memory is checked).
  CudaMatvec(const CkksEngine& engine, MatvecConfig config, CudaMatvecOptions options = {});
  ~CudaMatvec();
  CudaMatvec(const CudaMatvec&) = delete;
  CudaMatvec& operator=(const CudaMatvec&) = delete;

  const MatvecConfig& config() const { return config_; }
  const MatvecProblem& problem() const { return problem_; }
  const MemoryPlan& memory_plan() const { return plan_; }
  int rotation_count() const { return matvec_rotation_count(config_); }
  // The stream every run is ordered on (stage, launch, download).
  cudaStream_t stream() const;

  // Copies a fresh level-0 ciphertext into the fixed input buffer (ordered on
  // stream(); the graph reads that buffer on every replay).
  void stage(const Ciphertext& input);
  // The same from a ciphertext already on this device (a device-to-device
  // copy ordered on stream(); a multi-GPU rank stages the broadcast input).
  void stage(const CudaCiphertext& input);
  // Enqueues one product of the staged input: a replay of the graph
  // (captured on first use) or the same operations eagerly.
  void launch(bool graph);
  // launch(graph) between two CUDA events on stream(); waits and returns the
  // device milliseconds (the staged input must already be enqueued).
  double time_launch_ms(bool graph);
  // The result of the last launch (synchronises).
  Ciphertext download_result() const;
  // The same on the device, valid once stream() has reached the end of the
  // last launch (a share's partial sum, which a multi-GPU rank sends). For a
  // lazy-moddown share of several ranks it is the extended sum (QP rows,
  // before ModDown); rank 0 adds the ranks' sums and calls finish().
  const CudaCiphertext& result() const;
  // A lazy-moddown share of several ranks: whether result() is extended.
  bool result_is_extended() const;
  // ModDown-and-rescale of the ranks' added extended sums (enqueued on
  // stream()); returns the finished product.
  const CudaCiphertext& finish(const CudaCiphertext& extended_sum);
  // The evaluator of the main stream (worker 0; it owns the device keys).
  const CudaEvaluator& evaluator() const;
  // max |y_i - (Mx)_i| over the d outputs after decryption.
  double max_abs_error(const Ciphertext& result) const;

 private:
  struct Worker;
  bool lazy_moddown() const { return config_.policy == DiagonalPolicy::lazy_moddown; }
  void check_stageable(int level, std::size_t parts, double scale) const;
  void enqueue();
  void enqueue_diagonal();
  void enqueue_bsgs();
  void enqueue_bsgs_lazy();
  bool fuses_bsgs_inner_sums() const;
  void fork();
  void join_and_reduce();

  const CkksEngine& engine_;
  MatvecConfig config_;
  MatvecShare share_;
  MatvecProblem problem_;
  MemoryPlan plan_;
  std::vector<std::unique_ptr<Worker>> workers_;  // worker 0 owns the keys and the main stream
  std::vector<CudaCiphertext> diagonals_;       // batch and loop: 1 part each over the Q rows, level 0
  std::vector<CudaBlockPlain> block_diagonals_;  // lazy-moddown: one word a block (evaluator/block_rows.h)
  CudaCiphertext input_;                          // the fixed staging buffer
  std::vector<CudaCiphertext> baby_;              // bsgs: rotations 1..g-1 of the input
                                                  // (lazy-moddown: 0..g-1, extended)
  struct Graph;
  std::unique_ptr<Graph> graph_;
};

}  // namespace fhe::workloads
