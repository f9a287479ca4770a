// Sizes of the CUDA evaluator's workspaces and keys.
#include "evaluator/cuda_workspace.h"

#include <algorithm>

#include "evaluator/switch_key_layout.h"
#include "fhe/ckks/keys.h"

namespace fhe {

CudaWorkspaceWords cuda_workspace_words(const Preset& preset) {
  const std::size_t n = preset.n(), q = preset.q_primes.size(), p = preset.p_primes.size();
  const std::size_t digits = key_switch_digits(preset).size();
  const std::size_t conversions = std::max<std::size_t>(3, 2 * kHoistedRotationsPerLaunch);
  return {q * n,
          digits * (q + p) * n,
          2 * (q + p) * n,
          conversions * q * n,
          std::max<std::size_t>(2 * p, 3) * n,
          kHoistedRotationsPerLaunch * 2 * (q + p) * n};
}

bool key_terms_fit_32_bit_offsets(const Preset& preset) {
  constexpr std::size_t kWords32 = std::size_t{1} << 32;
  return device_switch_key_bytes(preset) / 8 < kWords32 && cuda_workspace_words(preset).extended < kWords32;
}

namespace {

// Secret key over QP, public key (b, a) over Q, the key-switching keys, a
// 4-byte permutation table per Galois key.
std::size_t key_set_bytes(const Preset& preset, std::size_t galois_keys, std::size_t switch_key_bytes) {
  const std::size_t n = preset.n(), q = preset.q_primes.size(), qp = preset.qp_rows();
  return qp * n * 8 + 2 * q * n * 8 + (1 + galois_keys) * switch_key_bytes + galois_keys * n * 4;
}

}  // namespace

std::size_t cuda_key_bytes(const Preset& preset, std::size_t galois_keys) {
  return key_set_bytes(preset, galois_keys, device_switch_key_bytes(preset));
}

std::size_t host_key_bytes(const Preset& preset, std::size_t galois_keys) {
  const std::size_t switch_key = static_cast<std::size_t>(preset.dnum()) * 2 * preset.qp_rows() * preset.n() * 8;
  return key_set_bytes(preset, galois_keys, switch_key);
}

}  // namespace fhe
