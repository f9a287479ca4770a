// Launchers of the device sampling kernels: small (ternary, Gaussian) and
// uniform polynomials drawn from the engine seed's counter-based streams,
// the words of the host Sampler (fhe/ckks/sampler.h). One thread per group
// of 4 coefficients computes one ChaCha20 block (sampling_words.h). Each
// launcher only enqueues on `stream` (no allocation, no synchronisation).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/sampling_words.h"
#include "fhe/arith/modarith.h"

namespace fhe::cuda {

// One small polynomial drawn from (seed, stream, row 0) and written, as
// small_coefficient_word(value, q_r), into every row r of `out` (rows x n
// words, coefficient form).
struct SmallDraw {
  std::uint64_t stream = 0;  // make_stream_id(purpose, instance, component)
  SmallDistribution distribution = SmallDistribution::ternary;
  std::uint64_t* out = nullptr;
};
inline constexpr int kMaxSmallDraws = 3;  // u, e0, e1 of a public-key encryption

// draws[0 .. draw_count) in one launch over rows [first_row, first_row + rows)
// (preset row ids; `moduli` is the device table of all QP moduli by row id).
void launch_sample_small(std::uint64_t seed, const SmallDraw* draws, int draw_count, std::size_t first_row,
                         std::size_t rows, int log_n, const Modulus<std::uint64_t>* moduli, cudaStream_t stream);

// Uniform words mod q_r: row r of `out` (rows x n) from (seed, stream_id, row id first_row + r).
void launch_sample_uniform(std::uint64_t seed, std::uint64_t stream_id, std::uint64_t* out, std::size_t first_row,
                           std::size_t rows, int log_n, const Modulus<std::uint64_t>* moduli, cudaStream_t stream);

}  // namespace fhe::cuda
