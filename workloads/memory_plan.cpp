// Memory estimates of the application workloads.
#include "workloads/memory_plan.h"

#include <algorithm>
#include <cstdio>

#include "evaluator/block_rows.h"
#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "workloads/matvec/matvec_problem.h"

namespace fhe::workloads {

std::size_t MemoryPlan::total_bytes() const {
  std::size_t total = 0;
  for (const MemoryItem& item : items) total += item.bytes;
  return total;
}

std::size_t MemoryPlan::bytes_of(const std::string& name) const {
  for (const MemoryItem& item : items) {
    if (item.name == name) return item.bytes;
  }
  return 0;
}

std::string format_bytes(std::size_t bytes) {
  char buffer[32];
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  if (gib >= 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", gib);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return buffer;
}

std::string MemoryPlan::summary() const {
  std::string text;
  for (const MemoryItem& item : items) {
    text += (text.empty() ? "" : " + ") + item.name + " " + format_bytes(item.bytes);
  }
  return text + " = " + format_bytes(total_bytes());
}

std::size_t ciphertext_bytes(const Preset& preset, int level) {
  return 2 * preset.active_q_rows(level) * preset.n() * 8;
}

int lazy_bsgs_inner_sums(const MatvecConfig& config) {
  if (config.method != MatvecMethod::bsgs || config.policy != DiagonalPolicy::lazy_moddown) return 0;
  const int giant_steps = bsgs_giant_steps(config);
  const int workers = std::max(config.workers, 1);
  const int largest_range = (giant_steps + workers - 1) / workers;  // of partition_range
  return std::min(largest_range, kLazyBsgsInnerSumsPerPass);
}

bool lazy_bsgs_fuses_inner_sums(int workers, int giant_steps) {
  return workers == 1 && giant_steps >= 1 && giant_steps <= kLazyBsgsFusedInnerSums;
}

namespace {

std::size_t key_bytes(const Preset& preset, std::size_t galois_keys, DeviceKind device) {
  return device == DeviceKind::cuda ? cuda_key_bytes(preset, galois_keys) : host_key_bytes(preset, galois_keys);
}

}  // namespace

MemoryPlan plan_matvec_memory(const Preset& preset, const MatvecConfig& config, DeviceKind device) {
  const std::size_t steps = matvec_rotation_steps(config).size();
  const std::size_t row_bytes = preset.n() * 8;
  const std::size_t q_rows = preset.active_q_rows(0);
  const std::size_t workers = static_cast<std::size_t>(config.workers);
  MemoryPlan plan;
  plan.items.push_back({"keys", key_bytes(preset, steps, device)});
  // lazy-moddown keeps its diagonals and sums over the QP rows; on CUDA its
  // diagonals (of period dim) hold one word a block (evaluator/block_rows.h).
  const bool lazy = config.policy == DiagonalPolicy::lazy_moddown;
  const bool bsgs = config.method == MatvecMethod::bsgs;
  const std::size_t extended_part_bytes = preset.qp_rows() * row_bytes;
  const std::size_t diagonal_bytes =
      !lazy ? q_rows * row_bytes
      : device == DeviceKind::cuda
          ? extended_part_bytes >> periodic_block_log(preset.n(), static_cast<std::size_t>(config.dim))
          : extended_part_bytes;
  plan.items.push_back({"diagonals", static_cast<std::size_t>(matvec_diagonal_count(config)) * diagonal_bytes});
  // Per worker, what CudaMatvec allocates: its evaluator's workspaces, the
  // diagonal chunk's rotations (batch/loop), product, pending, rescaled and
  // sum (bsgs: an inner sum and its rotation), and under lazy-moddown the
  // extended sum (bsgs: and one pass of extended inner sums). Once: the
  // staged input and the baby steps (lazy: 0..g-1 extended, else 1..g-1;
  // none where lazy_bsgs_fuses_inner_sums).
  // Not counted: each evaluator's key-switching constants, about 1 MB at
  // logN 16.
  const std::size_t ciphertext = ciphertext_bytes(preset, 0);
  const std::size_t extended = 2 * extended_part_bytes;
  // A worker's chunk: at most its share of the d diagonals (CudaMatvec).
  const std::size_t share = (static_cast<std::size_t>(config.dim) + workers - 1) / workers;
  const std::size_t chunk = !bsgs && !lazy ? std::min(static_cast<std::size_t>(config.hoist), share) : 0;
  const std::size_t extended_sums = lazy ? 1 + static_cast<std::size_t>(lazy_bsgs_inner_sums(config)) : 0;
  const std::size_t per_worker = cuda_workspace_words(preset).total() * 8 +
                                 (chunk + 4 + (bsgs ? 2 : 0)) * ciphertext + extended_sums * extended;
  const int baby_steps = bsgs ? bsgs_baby_steps(config) : 1;
  const auto g = static_cast<std::size_t>(baby_steps);
  const bool stored = bsgs && (!lazy || !lazy_bsgs_fuses_inner_sums(config.workers, bsgs_giant_steps(config)));
  const std::size_t once = ciphertext + (stored ? (lazy ? g * extended : (g - 1) * ciphertext) : 0);
  plan.items.push_back({"workspaces", workers * per_worker + once});
  return plan;
}

MemoryPlan plan_keyswitch_memory(const Preset& preset, const std::vector<int>& levels, DeviceKind device) {
  // A device ciphertext holds its parts at level-0 size whatever its level
  // (CudaCiphertext); a host one, its level's rows.
  const auto held_bytes = [&](int level) { return ciphertext_bytes(preset, device == DeviceKind::cuda ? 0 : level); };
  std::size_t inputs = 0;
  int lowest_level = preset.levels;
  for (int level : levels) {
    // fresh (2 parts) + product (3 parts) = 2.5 two-part ciphertexts.
    inputs += held_bytes(level) * 5 / 2;
    lowest_level = std::min(lowest_level, level);
  }
  MemoryPlan plan;
  plan.items.push_back({"keys", key_bytes(preset, 1, device)});  // relinearization + rotation by 1
  plan.items.push_back({"evaluator workspaces", cuda_workspace_words(preset).total() * 8});
  plan.items.push_back({"inputs", inputs});
  plan.items.push_back({"output", levels.empty() ? 0 : held_bytes(lowest_level)});
  return plan;
}

namespace {

std::string refusal(const Preset& preset, const MemoryPlan& plan, const std::string& what,
                    std::size_t available_bytes, const std::string& device_name) {
  return what + " at " + preset.name + " needs " + plan.summary() + " but " + device_name + " has " +
         format_bytes(available_bytes) + " free";
}

}  // namespace

void require_plan_fits(const Preset& preset, const MemoryPlan& plan, const std::string& what,
                       std::size_t available_bytes, const std::string& device_name) {
  if (plan.total_bytes() > available_bytes)
    throw DeviceError(refusal(preset, plan, what, available_bytes, device_name));
}

bool fits(const MemoryPlan& plan, std::size_t available_bytes, std::size_t copies) {
  const std::size_t keys = plan.bytes_of("keys");
  const std::size_t each = (available_bytes - std::min(keys, available_bytes)) / std::max<std::size_t>(copies, 1);
  return keys <= available_bytes && plan.total_bytes() - keys <= each;
}

void require_fits(const Preset& preset, const MatvecConfig& config, DeviceKind device, std::size_t available_bytes,
                  const std::string& device_name, std::size_t copies) {
  const MemoryPlan plan = plan_matvec_memory(preset, config, device);
  if (fits(plan, available_bytes, copies)) return;
  const auto fitting = [&](const MatvecConfig& smaller) {
    return fits(plan_matvec_memory(preset, smaller, device), available_bytes, copies);
  };
  // The problem kept as long as possible: fewer workers, then a smaller
  // hoist, then a smaller dimension.
  std::string suggestion;
  for (MatvecConfig fewer = config; suggestion.empty() && fewer.workers > 1;) {
    fewer.workers /= 2;
    if (fitting(fewer)) suggestion = "--workers " + std::to_string(fewer.workers);
  }
  for (MatvecConfig smaller = config; suggestion.empty() && smaller.hoist > 1;) {
    smaller.hoist /= 2;
    if (fitting(smaller)) suggestion = "--hoist " + std::to_string(smaller.hoist);
  }
  for (MatvecConfig smaller = config; suggestion.empty() && smaller.dim > 2;) {
    smaller.dim /= 2;
    smaller.hoist = std::min(smaller.hoist, smaller.dim);
    // An explicit g stays valid (at most d), and the workers at most the
    // partitioned steps, at the smaller dimension.
    if (smaller.baby_steps) smaller.baby_steps = std::min(*smaller.baby_steps, smaller.dim);
    smaller.workers = 1;
    if (fitting(smaller)) {
      suggestion = "--dim " + std::to_string(smaller.dim) + " --hoist " + std::to_string(smaller.hoist);
      if (smaller.baby_steps != config.baby_steps) suggestion += " --baby-steps " + std::to_string(*smaller.baby_steps);
      if (config.workers != 1) suggestion += " --workers 1";
    }
  }
  if (suggestion.empty()) {
    suggestion = plan.bytes_of("keys") > available_bytes
                     ? "none (the keys alone exceed it)"
                     : "none with fewer workers, a smaller hoist or a smaller dimension";
  }
  const std::string what = "matvec " + std::to_string(config.dim) + "x" + std::to_string(config.dim);
  throw DeviceError(refusal(preset, plan, what, available_bytes, device_name) + "; largest that fits: " + suggestion);
}

}  // namespace fhe::workloads
