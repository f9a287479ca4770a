// Twiddle table construction.
#include "fhe/ntt/twiddles.h"

#include <string>

#include "fhe/arith/primes.h"
#include "fhe/core/error.h"

namespace fhe::ntt {

std::uint32_t bit_reverse(std::uint32_t value, int bits) {
  std::uint32_t result = 0;
  for (int i = 0; i < bits; ++i) {
    result = (result << 1) | ((value >> i) & 1);
  }
  return result;
}

template <typename Word>
PrimeTwiddles<Word> make_prime_twiddles(Word q, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  if (q >> WordTraits<Word>::max_modulus_bits) {
    throw InvalidArgument("modulus " + std::to_string(q) + " does not fit the " +
                          std::to_string(WordTraits<Word>::bits) + "-bit lazy NTT bound (2^" +
                          std::to_string(WordTraits<Word>::max_modulus_bits) + ")");
  }
  PrimeTwiddles<Word> t;
  t.q = q;
  t.psi = static_cast<Word>(primitive_root_of_unity(2 * n, q));
  const Word psi_inverse = inv_mod<Word>(t.psi, q);
  t.forward.resize(n);
  t.forward_shoup.resize(n);
  t.inverse.resize(n);
  t.inverse_shoup.resize(n);
  Word power = 1, inverse_power = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t k = bit_reverse(static_cast<std::uint32_t>(i), log_n);
    t.forward[k] = power;
    t.inverse[k] = inverse_power;
    power = mul_mod_exact<Word>(power, t.psi, q);
    inverse_power = mul_mod_exact<Word>(inverse_power, psi_inverse, q);
  }
  for (std::size_t k = 0; k < n; ++k) {
    t.forward_shoup[k] = shoup_companion<Word>(t.forward[k], q);
    t.inverse_shoup[k] = shoup_companion<Word>(t.inverse[k], q);
  }
  t.n_inverse = inv_mod<Word>(static_cast<Word>(n % q), q);
  t.n_inverse_shoup = shoup_companion<Word>(t.n_inverse, q);
  return t;
}

template <typename Word>
std::vector<PrimeTwiddles<Word>> make_twiddles(std::span<const std::uint64_t> moduli, int log_n) {
  std::vector<PrimeTwiddles<Word>> tables;
  tables.reserve(moduli.size());
  for (std::uint64_t q : moduli) {
    if (static_cast<Word>(q) != q) {
      throw InvalidArgument("modulus " + std::to_string(q) + " does not fit a " +
                            std::to_string(WordTraits<Word>::bits) + "-bit word");
    }
    tables.push_back(make_prime_twiddles<Word>(static_cast<Word>(q), log_n));
  }
  return tables;
}

template PrimeTwiddles<std::uint64_t> make_prime_twiddles(std::uint64_t, int);
template PrimeTwiddles<std::uint32_t> make_prime_twiddles(std::uint32_t, int);
template std::vector<PrimeTwiddles<std::uint64_t>> make_twiddles(std::span<const std::uint64_t>,
                                                                 int);
template std::vector<PrimeTwiddles<std::uint32_t>> make_twiddles(std::span<const std::uint64_t>,
                                                                 int);

}  // namespace fhe::ntt
