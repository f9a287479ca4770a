// Device memory a workload needs, estimated before anything is allocated
// (SPEC section 7: keys dominate; one level-0 key of the default preset is
// 390 MiB of 64-bit words, 305 MiB in the device layout of
// evaluator/switch_key_layout.h). Used to refuse, with the largest
// configuration that would fit, a run the device cannot hold.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"
#include "workloads/matvec/matvec_config.h"

namespace fhe::workloads {

struct MemoryItem {
  std::string name;
  std::size_t bytes = 0;
};

struct MemoryPlan {
  std::vector<MemoryItem> items;
  std::size_t total_bytes() const;
  std::size_t bytes_of(const std::string& name) const;  // 0 when there is no such item
  std::string summary() const;  // "keys 48.4 GiB + diagonals ... = total"
};

// One ciphertext of two parts at `level`.
std::size_t ciphertext_bytes(const Preset& preset, int level);

// Lazy-moddown BSGS: a worker computes the inner sums of up to this many
// giant steps in ONE pass over the stored baby steps (the CUDA kernel's
// output bound, cuda::kMaxProductOutputs), and keeps that many extended
// inner sums: more would not read the baby steps fewer times.
inline constexpr int kLazyBsgsInnerSumsPerPass = 8;
// The extended inner sums a worker of the one-GPU product holds: its largest
// giant-step range, at most kLazyBsgsInnerSumsPerPass (0 unless lazy BSGS).
int lazy_bsgs_inner_sums(const MatvecConfig& config);
// Up to this many giant steps of one worker take their inner sums straight
// from the baby steps' key products, one pass over the keys
// (cuda::kMaxRotationSums): the baby steps are then not stored.
inline constexpr int kLazyBsgsFusedInnerSums = 5;
// Whether a lazy BSGS of `workers` workers, one of them holding
// `giant_steps` giant steps, fuses its inner sums so (CudaMatvec): one
// worker (several would each form every baby step) and 1 to
// kLazyBsgsFusedInnerSums giant steps (more would stream the keys again).
bool lazy_bsgs_fuses_inner_sums(int workers, int giant_steps);

// Keys (relinearization + one Galois key per rotation step), the encoded
// diagonals, the hoisted decomposition and the rotated ciphertexts of one
// chunk per worker, and the accumulators. `device`: where the keys are held
// (a CUDA device keeps key-switching keys in 6 bytes a narrow word, the
// host in 8).
MemoryPlan plan_matvec_memory(const Preset& preset, const MatvecConfig& config, DeviceKind device);

// Keys (relinearization + the Galois key of one rotation step), one key
// switch's workspaces (the decomposed digits over QP rows), the inputs
// prepared at every level (a fresh 2-part ciphertext and its 3-part
// product; on CUDA each buffer at level-0 size, as CudaCiphertext holds
// them) and the output. CudaKeySwitchWorkload::plan_memory adds the
// evaluator's per-level constants.
MemoryPlan plan_keyswitch_memory(const Preset& preset, const std::vector<int>& levels, DeviceKind device);

// Whether `copies` holders of `plan` fit `available_bytes`, its keys one
// copy for all of them (backends held at once share one device key set)
// and the rest each one's.
bool fits(const MemoryPlan& plan, std::size_t available_bytes, std::size_t copies = 1);

// Throws DeviceError when `config`'s plan does not fit (as `fits`), naming
// what is needed, what is free and the largest configuration that fits:
// fewer workers, else a smaller hoist, else a smaller dimension.
void require_fits(const Preset& preset, const MatvecConfig& config, DeviceKind device, std::size_t available_bytes,
                  const std::string& device_name, std::size_t copies = 1);
// The same refusal for any plan, without a suggestion: "<what> at <preset>
// needs <summary> but <device_name> has <free> free".
void require_plan_fits(const Preset& preset, const MemoryPlan& plan, const std::string& what,
                       std::size_t available_bytes, const std::string& device_name);

std::string format_bytes(std::size_t bytes);

}  // namespace fhe::workloads
