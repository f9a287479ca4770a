// The division of a matvec across ranks: shares, their keys, their memory.
#include "workloads/matvec/multi_gpu_share.h"

#include <algorithm>

#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"

namespace fhe::workloads {
namespace {

bool is_bsgs(const MatvecConfig& config) { return config.method == MatvecMethod::bsgs; }

// What the partitioned steps are called in messages.
std::string partitioned_noun(const MatvecConfig& config) {
  return is_bsgs(config) ? "giant steps of bsgs" : "diagonals";
}

}  // namespace

int matvec_partitioned_count(const MatvecConfig& config) {
  return is_bsgs(config) ? bsgs_giant_steps(config) : config.dim;
}

void validate_share(const MatvecConfig& config, MatvecShare share) {
  const int count = matvec_partitioned_count(config);
  if (share.ranks < 1 || share.ranks > count || share.rank < 0 || share.rank >= share.ranks) {
    throw InvalidArgument("matvec share: rank " + std::to_string(share.rank) + " of " +
                          std::to_string(share.ranks) + " is invalid for the " + std::to_string(count) + " " +
                          partitioned_noun(config) + " at dimension " + std::to_string(config.dim));
  }
}

std::pair<int, int> share_range(const MatvecConfig& config, MatvecShare share) {
  validate_share(config, share);
  return partition_range(matvec_partitioned_count(config), share.ranks)[static_cast<std::size_t>(share.rank)];
}

std::vector<std::pair<int, int>> share_worker_ranges(const MatvecConfig& config, MatvecShare share) {
  const auto [begin, end] = share_range(config, share);
  auto ranges = partition_range(end - begin, config.workers);
  for (auto& [first, last] : ranges) {
    first += begin;
    last += begin;
  }
  return ranges;
}

std::vector<int> share_rotation_steps(const MatvecConfig& config, MatvecShare share) {
  const auto [begin, end] = share_range(config, share);
  std::vector<int> steps;
  if (is_bsgs(config)) {
    const int g = bsgs_baby_steps(config);
    for (int i = 1; i < g; ++i) steps.push_back(i);
    for (int j = std::max(begin, 1); j < end; ++j) steps.push_back(j * g);
  } else {
    for (int s = std::max(begin, 1); s < end; ++s) steps.push_back(s);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

bool share_uses_diagonal(const MatvecConfig& config, MatvecShare share, int s) {
  const auto [begin, end] = share_range(config, share);
  const int step = is_bsgs(config) ? s / bsgs_baby_steps(config) : s;
  return step >= begin && step < end;
}

MemoryPlan plan_share_memory(const Preset& preset, const MatvecConfig& config, MatvecShare share) {
  const auto [begin, end] = share_range(config, share);
  const std::size_t steps = share_rotation_steps(config, share).size();
  const std::size_t diagonals =
      static_cast<std::size_t>(end - begin) * static_cast<std::size_t>(is_bsgs(config) ? bsgs_baby_steps(config) : 1);
  MemoryPlan plan = plan_matvec_memory(preset, config, DeviceKind::cuda);
  for (MemoryItem& item : plan.items) {
    if (item.name == "keys") item.bytes = cuda_key_bytes(preset, steps);
    // Whatever rows the policy encodes them over, per diagonal.
    if (item.name == "diagonals") {
      item.bytes = diagonals * (item.bytes / static_cast<std::size_t>(matvec_diagonal_count(config)));
    }
  }
  return plan;
}

MemoryPlan plan_rank_memory(const Preset& preset, const MatvecConfig& config, MatvecShare share) {
  MemoryPlan plan = plan_share_memory(preset, config, share);
  const std::size_t receive = share.rank == 0 && share.ranks > 1 ? static_cast<std::size_t>(share.ranks) : 0;
  // The broadcast input, and on rank 0 the received sums and their total;
  // lazy-moddown ranks exchange their sums before ModDown, over the QP rows.
  const std::size_t partial = config.policy == DiagonalPolicy::lazy_moddown
                                  ? 2 * preset.qp_rows() * preset.n() * 8
                                  : ciphertext_bytes(preset, 0);
  plan.items.push_back({"nccl buffers", ciphertext_bytes(preset, 0) + receive * partial});
  return plan;
}

void validate_gpu_count(const MatvecConfig& config, int gpus, int visible_gpus,
                        const std::string& visibility_status) {
  if (gpus < 1) throw InvalidArgument("--gpus must be at least 1 (got " + std::to_string(gpus) + ")");
  if (gpus > visible_gpus) {
    std::string message = "--gpus " + std::to_string(gpus) + " needs " + std::to_string(gpus) +
                          (gpus == 1 ? " CUDA device but " : " CUDA devices but ") + std::to_string(visible_gpus) +
                          (visible_gpus == 1 ? " is" : " are") + " visible";
    if (visible_gpus == 0 && !visibility_status.empty()) message += " (" + visibility_status + ")";
    throw DeviceError(message);
  }
  const int count = matvec_partitioned_count(config);
  if (gpus > count) {
    const std::string baby_steps =
        config.baby_steps ? " --baby-steps " + std::to_string(*config.baby_steps) : std::string();
    throw InvalidArgument("--gpus " + std::to_string(gpus) + " exceeds the " + std::to_string(count) + " " +
                          partitioned_noun(config) + " at --dim " + std::to_string(config.dim) + baby_steps +
                          " (each GPU needs at least one)");
  }
}

std::vector<double> slowest_rank_per_sample(const std::vector<std::vector<double>>& per_rank) {
  std::vector<double> slowest;
  for (const auto& samples : per_rank) {
    if (slowest.empty()) slowest.assign(samples.size(), 0.0);
    if (samples.size() != slowest.size()) throw InvalidArgument("slowest_rank_per_sample: ranks differ in sample count");
    for (std::size_t i = 0; i < samples.size(); ++i) slowest[i] = std::max(slowest[i], samples[i]);
  }
  return slowest;
}

}  // namespace fhe::workloads
