// Host-side construction of what a CUDA plan uploads once: twiddle pairs in
// the backend's layout (compact bit-reversed rows, or the strict radix
// per-digit layout of radix_layout.h), per-row constants, radix2_indexed's
// per-stage index table, and the twiddle addressing of each pass. Plain C++
// so the host emulation test builds exactly what the device gets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fhe/ntt/backend.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"
#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/radix_layout.h"
#include "fhe/ntt/twiddles.h"

namespace fhe::ntt::gpu {

template <typename Word>
struct HostTables {
  std::uint32_t stride = 0;  // pairs per row (N; the radix layout's N-1 is padded)
  std::vector<TwiddlePair<Word>> forward, inverse;
  std::vector<RowConstants<Word>> constants;
};

// Whether a 64-bit row runs the double-precision butterflies: a
// prime below 2^42 in the fused kernels (radix2_indexed, the reference,
// keeps the integer ones).
inline bool fp64_row(const BackendInfo& backend, std::uint64_t q) {
  return backend.family != BackendFamily::indexed && fp64_modulus(q);
}

// A double-precision row's table (Fp64Arith::twiddle): its n twiddles as
// doubles packed at the start of the row's pair slots, zeros after.
inline void pack_fp64_twiddles(TwiddlePair<std::uint64_t>* row, std::size_t n) {
  std::vector<double> values(n);
  for (std::size_t k = 0; k < n; ++k) values[k] = static_cast<double>(row[k].value);
  std::fill(row, row + n, TwiddlePair<std::uint64_t>{0, 0});
  std::memcpy(row, values.data(), n * sizeof(double));
}

template <typename Word>
HostTables<Word> make_host_tables(const BackendInfo& backend, int log_n,
                                  std::span<const std::uint64_t> moduli) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::vector<PrimeTwiddles<Word>> primes = make_twiddles<Word>(moduli, log_n);
  HostTables<Word> tables;
  tables.stride = static_cast<std::uint32_t>(n);
  tables.forward.resize(primes.size() * n, TwiddlePair<Word>{0, 0});
  tables.inverse.resize(primes.size() * n, TwiddlePair<Word>{0, 0});
  const bool strict = backend.family == BackendFamily::strict_radix;
  const RadixLayout layout = strict ? make_radix_layout(log_n, backend.stages_per_pass) : RadixLayout{};
  for (std::size_t row = 0; row < primes.size(); ++row) {
    const PrimeTwiddles<Word>& t = primes[row];
    TwiddlePair<Word>* forward = tables.forward.data() + row * n;
    TwiddlePair<Word>* inverse = tables.inverse.data() + row * n;
    if (strict) {
      const RadixTwiddles<Word> f = make_radix_twiddles(layout, t, true);
      const RadixTwiddles<Word> i = make_radix_twiddles(layout, t, false);
      for (std::size_t k = 0; k < layout.size(); ++k) {
        forward[k] = {f.values[k], f.companions[k]};
        inverse[k] = {i.values[k], i.companions[k]};
      }
    } else {
      for (std::size_t k = 0; k < n; ++k) {
        forward[k] = {t.forward[k], t.forward_shoup[k]};
        inverse[k] = {t.inverse[k], t.inverse_shoup[k]};
      }
    }
    const Word scaled = mul_mod_exact<Word>(t.inverse[n > 1 ? 1 : 0], t.n_inverse, t.q);
    RowConstants<Word> constants{t.q, t.n_inverse, t.n_inverse_shoup, scaled, shoup_companion<Word>(scaled, t.q)};
    if constexpr (sizeof(Word) == 8) {
      if (fp64_row(backend, t.q)) {
        pack_fp64_twiddles(forward, n);
        pack_fp64_twiddles(inverse, n);
        constants.fp64 = 1;
        constants.fp64_q_inverse = fp64_inverse(t.q);
      }
    }
    tables.constants.push_back(constants);
  }
  return tables;
}

// radix2_indexed: for stage s and butterfly i, the top word 2 g h + j and the
// compact twiddle index 2^s + g (h = N >> (s+1), g = i / h, j = i mod h).
inline std::vector<IndexEntry> make_index_table(int log_n) {
  const std::uint32_t n = 1u << log_n;
  std::vector<IndexEntry> entries;
  entries.reserve(static_cast<std::size_t>(log_n) * (n / 2));
  for (int stage = 0; stage < log_n; ++stage) {
    const std::uint32_t half = n >> (stage + 1);
    for (std::uint32_t i = 0; i < n / 2; ++i) {
      const std::uint32_t group = i / half, offset = i % half;
      entries.push_back({2 * group * half + offset, (1u << stage) + group});
    }
  }
  return entries;
}

// Addressing of `count` consecutive stages from `first_stage` (see kernel_params.h).
inline StageTwiddleAddress make_stage_address(const BackendInfo& backend, int log_n,
                                              int first_stage, int count) {
  StageTwiddleAddress address{};
  const bool strict = backend.family == BackendFamily::strict_radix;
  const RadixLayout layout = strict ? make_radix_layout(log_n, backend.stages_per_pass) : RadixLayout{};
  for (int r = 0; r < count; ++r) {
    const int stage = first_stage + r;
    if (stage < 0) continue;  // a stage of an earlier pass; never read
    if (strict) {
      const int b = backend.stages_per_pass;
      const int within = stage % b;
      address.base[r] = static_cast<std::uint32_t>(layout.digit_offsets[stage / b] +
                                                   ((std::size_t{1} << within) - 1));
      address.shift[r] = static_cast<std::uint32_t>(within);
      address.stride[r] = static_cast<std::uint32_t>(layout.radix() - 1);
    } else {
      address.base[r] = 1u << stage;
      address.shift[r] = 0;
      address.stride[r] = 1;
    }
  }
  address.consecutive = true;
  for (int r = 0; r < count; ++r) address.consecutive = address.consecutive && stage_groups_consecutive(address, r);
  return address;
}

}  // namespace fhe::ntt::gpu
