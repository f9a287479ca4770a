// How a matvec over several GPUs divides its work (SPEC section 7: "GPUs/
// ranks with a reduction"). Rank r of G takes partition_range(count, G)[r]
// of the partitioned steps (the d diagonals, or the d/g BSGS giant steps)
// and splits that share across its own worker streams with partition_range
// again, so G ranks of one worker do exactly what one GPU with G workers
// does. A rank needs only the Galois keys of its share (a key's randomness
// depends on its own Galois element only, so they equal the one-GPU keys)
// and plans its device memory from them. Pure functions, tested on the CPU.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fhe/params/preset.h"
#include "workloads/matvec/matvec_config.h"
#include "workloads/memory_plan.h"

namespace fhe::workloads {

// One rank's place in a run of `ranks` GPUs; {0, 1} is the one-GPU product.
struct MatvecShare {
  int rank = 0;
  int ranks = 1;
};

// The steps that are partitioned across ranks and workers: d diagonals
// (diagonal) or d/g giant steps (bsgs).
int matvec_partitioned_count(const MatvecConfig& config);

// Throws InvalidArgument unless 0 <= rank < ranks <= matvec_partitioned_count
// (every rank gets at least one step, so every rank has a partial sum).
void validate_share(const MatvecConfig& config, MatvecShare share);

// [begin, end) of the partitioned steps owned by the rank.
std::pair<int, int> share_range(const MatvecConfig& config, MatvecShare share);
// The share split across config.workers streams (absolute step indices; a
// worker may get an empty range). {0, 1} gives partition_range(count, workers).
std::vector<std::pair<int, int>> share_worker_ranges(const MatvecConfig& config, MatvecShare share);

// Rotation steps whose Galois keys the rank needs (sorted, no zero): its
// diagonals' steps, or all baby steps (every rank computes them) and its
// giant steps. {0, 1} gives matvec_rotation_steps(config).
std::vector<int> share_rotation_steps(const MatvecConfig& config, MatvecShare share);

// Whether the rank uses diagonal s (BSGS: s belongs to its giant steps).
bool share_uses_diagonal(const MatvecConfig& config, MatvecShare share, int s);

// plan_matvec_memory with the keys and diagonals of the rank's share only
// (the per-worker workspaces are those of the one-GPU plan, an upper bound).
MemoryPlan plan_share_memory(const Preset& preset, const MatvecConfig& config, MatvecShare share);
// plan_share_memory plus the NCCL buffers of the run: the broadcast input
// on every rank and, on rank 0 of several, the received partials and their
// sum.
MemoryPlan plan_rank_memory(const Preset& preset, const MatvecConfig& config, MatvecShare share);

// The checks of `--gpus G` before anything starts: G >= 1 (InvalidArgument),
// G <= visible_gpus (DeviceError naming `visibility_status` when none are
// visible) and G <= matvec_partitioned_count (InvalidArgument).
void validate_gpu_count(const MatvecConfig& config, int gpus, int visible_gpus,
                        const std::string& visibility_status);

// The latency of each sample of a run over ranks: the slowest rank's time
// (per_rank[r][i] = rank r's sample i; all ranks have the same count).
std::vector<double> slowest_rank_per_sample(const std::vector<std::vector<double>>& per_rank);

}  // namespace fhe::workloads
