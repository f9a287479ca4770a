// The device memory a CudaEvaluator allocates (evaluator/cuda/) for its
// workspaces and keys, known from the preset alone and on machines without
// CUDA, so memory plans can count it before anything is allocated.
#pragma once

#include <cstddef>

#include "fhe/params/preset.h"

namespace fhe {

// Rotations of one hoisted decomposition computed by one kernel launch in
// rotate / rotate_many_by_steps: the launch reads the digits from DRAM once
// for all of them (each then has its own ModDown).
inline constexpr std::size_t kHoistedRotationsPerLaunch = 4;

// 64-bit words of each key-switching workspace, sized for level 0.
struct CudaWorkspaceWords {
  std::size_t coefficients;  // the input's Q rows in coefficient form (ModUp)
  std::size_t extended;      // every digit over QP rows (the hoisted decomposition)
  std::size_t accumulators;  // two key inner products over QP rows
  std::size_t converted;     // Q-row conversions: a rescale's 3 parts, a ModDown's 2 per rotation,
                             // or up to 8 giant steps' c1 in coefficient form (accumulate_extended_rotations)
  std::size_t dropped;       // the P rows of two parts, or the dropped row of three
  std::size_t rotations;     // kHoistedRotationsPerLaunch rotations over QP rows (2 parts each),
                             // or up to 8 giant steps' c1 over Q (accumulate_extended_rotations)
  std::size_t total() const { return coefficients + extended + accumulators + converted + dropped + rotations; }
};

CudaWorkspaceWords cuda_workspace_words(const Preset& preset);

// Whether 32-bit word offsets reach every word of one key-switching key
// and of the hoisted digits (the `extended` workspace): the rotation
// kernels address both so (key_terms.cuh; the 64-bit products took a
// fifth of a narrow round's instructions). True at every preset here
// (the largest key, logN 17 with 17 digits, is about 2^29 words); a
// CudaEvaluator refuses a preset beyond it.
bool key_terms_fit_32_bit_offsets(const Preset& preset);

// Bytes of the device keys (evaluator/cuda/device_keys.h) of an engine with
// `galois_keys` Galois keys: the secret key over QP rows, the public key
// over Q rows, the relinearization and Galois key-switching keys (in
// switch_key_layout.h's layout), and each Galois key's permutation table.
std::size_t cuda_key_bytes(const Preset& preset, std::size_t galois_keys);
// The same keys in host memory (fhe::CkksEngine): key-switching keys as
// 64-bit words.
std::size_t host_key_bytes(const Preset& preset, std::size_t galois_keys);

}  // namespace fhe
