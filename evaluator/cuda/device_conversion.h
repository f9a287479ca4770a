// Device views of the CPU's key-switching constants: BasisConversion and
// RnsScaleDown flattened into one uploaded blob per level. Plain structs of
// device pointers, passed to kernels by value or read from device memory;
// the words are exactly the CPU objects' (no recomputation on the device).
#pragma once

#include <cstdint>

#include "fhe/arith/modarith.h"

namespace fhe::cuda {

// Sources the conversion kernels keep in registers (digits are |P| primes
// wide; every preset has |P| <= 6).
inline constexpr int kMaxConversionSources = 8;

// Sources below 2^50 allow the centred sums: their centred digits are exact
// doubles below 2^49, the products' input bound (fhe/ntt/cuda/
// fp64_arith.cuh).
inline constexpr int kCentredSourceBits = 50;
inline constexpr int kCloseEstimateSourceBits = 46;
// The centred estimate's error bound (conversion_thread.cuh) holds for at
// most 4 sources; conversions with more take the split sums.
inline constexpr int kMaxCentredSources = 4;

struct DeviceConversion {
  int sources = 0;
  int targets = 0;
  // Source rows start this many rows into the kernel's source pointer.
  int source_offset_rows = 0;
  const Modulus<std::uint64_t>* source_moduli = nullptr;
  const std::uint64_t* hat_inverse = nullptr;
  const std::uint64_t* hat_inverse_shoup = nullptr;
  const Modulus<std::uint64_t>* target_moduli = nullptr;
  const std::uint32_t* target_offsets = nullptr;
  // The two sums of conversion_thread.cuh, both a quotient estimate in
  // double precision and a remainder in 64-bit words.
  // The centred sums, when there are at most kMaxCentredSources sources, each
  // below 2^50: per target and source [qhat_i]_(p_t) as a word and
  // fl([qhat_i]_(p_t) / p_t) as a double. A block stages these or the split
  // sums' constants by this flag (one region of shared memory), so it must
  // say which sums the thread runs.
  bool centred_estimate = false;
  // Every source below 2^46 as well: the estimate is within 0.11 of the
  // quotient, so the remainder is within 0.61 p_t of 0 (conversion_thread.cuh).
  bool close_estimate = false;
  const std::uint64_t* hat_plain = nullptr;  // [t * sources + i]
  const double* hat_quotient = nullptr;      // [t * sources + i]
  // The split sums (every other conversion): per target and source the pair
  // (h, [h 2^32]_(p_t)), h = [qhat_i]_(p_t), and their quotients by p_t; per
  // target [-Q]_(p_t) and its quotient.
  const std::uint64_t* split_hats = nullptr;  // [2 (t * sources + i) + 0 or 1]
  const double* split_quotients = nullptr;    // [2 (t * sources + i) + 0 or 1]
  const std::uint64_t* minus_q = nullptr;     // [t]
  const double* minus_q_quotient = nullptr;   // [t]
};

// Division by the dropped rows' product with rounding (RnsScaleDown).
struct DeviceScaleDown {
  DeviceConversion conversion;                     // dropped -> kept, offsets 0..kept-1
  const std::uint64_t* inverse_mod_kept = nullptr;  // [D^-1]_(q_i)
  const std::uint64_t* inverse_mod_kept_shoup = nullptr;
  int kept_rows = 0;
};

}  // namespace fhe::cuda
