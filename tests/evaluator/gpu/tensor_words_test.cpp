// The tensor product's words (evaluator/cuda/tensor_words.cuh) on the host:
// both forms against 128-bit products, for every prime of every production
// preset (the double-precision form where the kernel takes it, primes below
// 2^42) and the largest prime below 2^42, on random words and on every
// combination of edge words (0, 1, (q - 1) / 2, (q + 1) / 2, q - 2, q - 1:
// the largest products and the largest cross sum). Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "evaluator/cuda/tensor_words.cuh"
#include "fhe/arith/primes.h"
#include "fhe/params/preset.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

cuda::TensorWords expected_words(u64 a0, u64 a1, u64 b0, u64 b1, u64 q) {
  const auto product = [q](u64 x, u64 y) { return static_cast<u128>(x) * y % q; };
  return {static_cast<u64>(product(a0, b0)), static_cast<u64>((product(a0, b1) + product(a1, b0)) % q),
          static_cast<u64>(product(a1, b1))};
}

// Every prime the production presets use, and the largest below 2^42.
std::vector<u64> primes_to_check() {
  std::set<u64> primes;
  for (const Preset& preset : all_presets()) {
    for (const u64 q : preset.qp_primes()) primes.insert(q);
  }
  u64 below = (u64{1} << ntt::gpu::kFp64ModulusBits) - 1;
  while (!is_prime(below)) below -= 2;
  primes.insert(below);
  return {primes.begin(), primes.end()};
}

// Checks one prime on `words` (a0, a1, b0, b1 each); returns the words
// that differed from the 128-bit products, over both forms.
int wrong_words(u64 q, const std::vector<u64>& words) {
  const Modulus<u64> m(q);
  const bool fp64 = ntt::gpu::fp64_modulus(q);
  const double q_inverse = ntt::gpu::fp64_inverse(q);
  int wrong = 0;
  const auto count = [&wrong](const cuda::TensorWords& got, const cuda::TensorWords& want) {
    wrong += (got.d0 != want.d0) + (got.d1 != want.d1) + (got.d2 != want.d2);
  };
  for (std::size_t i = 0; i + 3 < words.size(); i += 4) {
    const u64 a0 = words[i], a1 = words[i + 1], b0 = words[i + 2], b1 = words[i + 3];
    const cuda::TensorWords want = expected_words(a0, a1, b0, b1, q);
    count(cuda::tensor_words_integer(a0, a1, b0, b1, m), want);
    if (fp64) count(cuda::tensor_words_fp64(a0, a1, b0, b1, q, q_inverse), want);
  }
  return wrong;
}

TEST(TensorWords, BothFormsGiveTheResiduesOfEveryPresetPrime) {
  std::mt19937_64 rng(20261206);
  int fp64_primes = 0;
  for (const u64 q : primes_to_check()) {
    SCOPED_TRACE(::testing::Message() << "q = " << q);
    fp64_primes += ntt::gpu::fp64_modulus(q);
    std::vector<u64> words;
    const u64 edges[] = {0, 1, (q - 1) / 2, (q + 1) / 2, q - 2, q - 1};
    for (const u64 a0 : edges) {
      for (const u64 a1 : edges) {
        for (const u64 b0 : edges) {
          for (const u64 b1 : edges) words.insert(words.end(), {a0, a1, b0, b1});
        }
      }
    }
    std::uniform_int_distribution<u64> word(0, q - 1);
    for (int i = 0; i < 4 * 512; ++i) words.push_back(word(rng));
    EXPECT_EQ(wrong_words(q, words), 0);
  }
  // The scale-30 and scale-40 presets' scale primes, the int32 presets'
  // primes and the 2^42 edge take the double-precision form; the 50-bit
  // and 60-bit primes do not.
  EXPECT_GT(fp64_primes, 100);
}

TEST(TensorWords, OnlyPrimesBelowTwoToThe42TakeTheDoublePrecisionForm) {
  const Preset& preset = preset_by_name(kDefaultPresetName);
  int fp64_rows = 0;
  for (const u64 q : preset.qp_primes()) fp64_rows += ntt::gpu::fp64_modulus(q);
  EXPECT_EQ(fp64_rows, preset.levels);  // the scale primes; not the base or P primes (60-bit)
}

}  // namespace
}  // namespace fhe
