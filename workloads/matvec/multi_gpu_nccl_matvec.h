// The rotation-parallel matvec over G GPUs (SPEC section 7, issue 7 item
// 3): one process per GPU, rank r on cuda:r. Rank 0 is the calling process;
// it starts ranks 1..G-1 as copies of a given command (RankProcesses) and
// passes each its message (request, rank, NCCL unique id) through a pipe.
// Every rank builds the same engine (preset, backend, seed), generates only
// the Galois keys of its share (share_rotation_steps) and runs that share
// as a CudaMatvec, eager or replaying its own captured graph.
//
// Per sample: rank 0's input, encrypted once and broadcast (ncclBroadcast)
// before the samples, is staged on every rank; each rank times its part
// with CUDA events; a barrier (a one-word ncclAllReduce) lets every rank
// finish; then the reduction, timed on rank 0 with CUDA events: the
// partial sums are residues mod q_i, so they are not summed by NCCL
// (ncclSum would wrap 2^64, not q_i): ranks 1..G-1 ncclSend their partial
// to rank 0, which receives them in one group and adds them with the
// evaluator's modular add (the same kernel and order as the one-GPU
// worker join). The reduction runs outside the captured graphs. The part
// times are gathered at the end with ncclAllGather; the latency of a
// sample is the slowest rank's part.
//
// G ranks of W workers each compute exactly the one-GPU product with
// rank-then-worker partitioning: with W = 1, the words of a one-GPU
// CudaMatvec with G workers (checked by the gpu tests).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fhe/ckks/ciphertext.h"
#include "workloads/matvec/multi_gpu_message.h"
#include "workloads/memory_plan.h"

namespace fhe::workloads {

struct MultiGpuLaunch {
  // The command that starts a further rank; "--rank-fd N" is appended
  // (the fhelium CLI: {"/proc/self/exe", "workload", "matvec"}).
  std::vector<std::string> rank_command;
};

// One launch mode (graph replay or eager) over every timed sample.
struct MultiGpuModeResult {
  std::vector<std::vector<double>> part_ms;  // [rank][sample]: CUDA events around the rank's launch
  std::vector<double> slowest_ms;            // per sample: max over ranks, the reported latency
  std::vector<double> reduction_ms;          // per sample, rank 0: receive + modular add
  Ciphertext result;                         // the reduced product after the last sample
  double max_abs_error = 0;                  // of `result` against the Eigen product
};

struct MultiGpuMatvecResult {
  MultiGpuMatvecRequest request;             // with the resolved NTT backend
  std::vector<std::pair<int, int>> shares;   // per rank: its partitioned steps [begin, end)
  std::vector<int> rank_rotations;           // per rank: rotation steps it keys and performs
  std::vector<MemoryPlan> rank_plans;        // per rank: plan_rank_memory
  Ciphertext input;                          // what rank 0 encrypted and broadcast
  MultiGpuModeResult graph, eager;
};

// Rank 0. Checks the request (keep_nvlink_multicast_off, validate_gpu_count
// against the visible GPUs), starts the other ranks with `launch`, runs
// its share, the reductions and the gathering, and waits for the other
// ranks to exit. A failing rank, a timeout or an error on rank 0 ends the
// run with DeviceError naming the rank; every started rank is killed.
MultiGpuMatvecResult run_multi_gpu_matvec(const MultiGpuMatvecRequest& request, const MultiGpuLaunch& launch);

// A started rank: reads its message from `message_fd` and runs its share
// of the protocol above. Errors are prefixed with the rank and device.
void run_matvec_rank(int message_fd);

}  // namespace fhe::workloads
