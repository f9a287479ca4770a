// Encryption finishing kernels: one thread per word, the same modular
// operations in the same order as the host Encryptor (multiply_add_inplace,
// sub_inplace, add_inplace), so the words are equal.
#include "evaluator/cuda/encrypt_kernels.h"

#include "fhe/cuda/check.h"

namespace fhe::cuda {
namespace {

constexpr unsigned kBlock = 256;
using u64 = std::uint64_t;

unsigned blocks_for(std::size_t count) { return static_cast<unsigned>((count + kBlock - 1) / kBlock); }

__global__ void public_key_finish_kernel(u64* __restrict__ c0, u64* __restrict__ c1, const u64* __restrict__ u,
                                         const u64* __restrict__ plaintext, const u64* __restrict__ key_b,
                                         const u64* __restrict__ key_a, std::size_t first_row,
                                         std::size_t part_words, int log_n, const Modulus<u64>* __restrict__ moduli) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= part_words) return;
  const Modulus<u64> m = moduli[first_row + (i >> log_n)];
  const std::size_t key = (first_row << log_n) + i;
  const u64 ui = u[i];
  c0[i] = add_mod(add_mod(c0[i], mul_mod(key_b[key], ui, m), m.value), plaintext[i], m.value);
  c1[i] = add_mod(c1[i], mul_mod(key_a[key], ui, m), m.value);
}

__global__ void secret_key_finish_kernel(u64* __restrict__ c0, const u64* __restrict__ a,
                                         const u64* __restrict__ plaintext, const u64* __restrict__ secret,
                                         std::size_t first_row, std::size_t part_words, int log_n,
                                         const Modulus<u64>* __restrict__ moduli) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= part_words) return;
  const Modulus<u64> m = moduli[first_row + (i >> log_n)];
  const u64 a_times_s = mul_mod(a[i], secret[(first_row << log_n) + i], m);
  c0[i] = add_mod(sub_mod(c0[i], a_times_s, m.value), plaintext[i], m.value);
}

}  // namespace

void launch_public_key_finish(u64* c0, u64* c1, const u64* u, const u64* plaintext, const u64* key_b,
                              const u64* key_a, std::size_t first_row, std::size_t rows, int log_n,
                              const Modulus<u64>* moduli, cudaStream_t stream) {
  const std::size_t part_words = rows << log_n;
  public_key_finish_kernel<<<blocks_for(part_words), kBlock, 0, stream>>>(c0, c1, u, plaintext, key_b, key_a,
                                                                          first_row, part_words, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("public_key_finish_kernel");
}

void launch_secret_key_finish(u64* c0, const u64* a, const u64* plaintext, const u64* secret, std::size_t first_row,
                              std::size_t rows, int log_n, const Modulus<u64>* moduli, cudaStream_t stream) {
  const std::size_t part_words = rows << log_n;
  secret_key_finish_kernel<<<blocks_for(part_words), kBlock, 0, stream>>>(c0, a, plaintext, secret, first_row,
                                                                          part_words, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("secret_key_finish_kernel");
}

}  // namespace fhe::cuda
