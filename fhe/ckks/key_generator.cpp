// Secret, public, relinearization and Galois keys.
#include "fhe/ckks/key_generator.h"

#include "fhe/ckks/galois.h"
#include "fhe/ckks/poly_arith.h"
#include "fhe/ckks/random_words.h"

namespace fhe {

KeyGenerator::KeyGenerator(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan,
                           const Sampler& sampler)
    : preset_(preset), basis_(basis), plan_(plan), sampler_(sampler) {}

SecretKey KeyGenerator::secret_key() const {
  const auto s = sampler_.ternary(make_stream_id(RandomPurpose::secret_key, 0, 0), preset_.n());
  return {small_poly_ntt(s, {0, preset_.qp_rows()}, basis_, plan_), sampler_.seed()};
}

PublicKey KeyGenerator::public_key(const SecretKey& secret) const {
  const ntt::RowRange q_rows{0, preset_.q_primes.size()};
  PublicKey key;
  key.a = RnsPoly(q_rows.first, q_rows.count, preset_.n(), true);
  sampler_.fill_uniform(key.a, make_stream_id(RandomPurpose::public_key_a, 0, 0), basis_);
  const auto e = sampler_.gaussian(make_stream_id(RandomPurpose::public_key_e, 0, 0), preset_.n());
  key.b = small_poly_ntt(e, q_rows, basis_, plan_);
  multiply_sub_inplace(key.b, key.a, secret.ntt, basis_);  // b = e - a s
  return key;
}

KeySwitchKey KeyGenerator::switch_key(const SecretKey& secret, const RnsPoly& target,
                                      std::uint64_t instance) const {
  const ntt::RowRange qp_rows{0, preset_.qp_rows()};
  // P mod q_i for every Q row: the digit idempotent's value on its own rows.
  std::vector<std::uint64_t> p_mod_q(preset_.q_primes.size());
  for (std::size_t i = 0; i < p_mod_q.size(); ++i) {
    std::uint64_t product = 1;
    for (std::uint64_t p : preset_.p_primes) {
      product = mul_mod(product, p % basis_.prime(i), basis_.modulus(i));
    }
    p_mod_q[i] = product;
  }
  KeySwitchKey key;
  const auto digits = key_switch_digits(preset_);
  for (std::size_t j = 0; j < digits.size(); ++j) {
    const auto component = static_cast<std::uint32_t>(j);
    KeySwitchComponent c;
    c.a = RnsPoly(qp_rows.first, qp_rows.count, preset_.n(), true);
    sampler_.fill_uniform(c.a, make_stream_id(RandomPurpose::switch_key_a, instance, component), basis_);
    const auto e = sampler_.gaussian(make_stream_id(RandomPurpose::switch_key_e, instance, component),
                                     preset_.n());
    c.b = small_poly_ntt(e, qp_rows, basis_, plan_);
    multiply_sub_inplace(c.b, c.a, secret.ntt, basis_);  // b = e - a s
    for (std::size_t id = digits[j].first; id < digits[j].first + digits[j].count; ++id) {
      const Modulus<std::uint64_t>& q = basis_.modulus(id);
      std::uint64_t* b = c.b.row(id);
      const std::uint64_t* s_prime = target.row(id);
      for (std::size_t k = 0; k < preset_.n(); ++k) {
        b[k] = add_mod(b[k], mul_mod(p_mod_q[id], s_prime[k], q), q.value);
      }
    }
    key.components.push_back(std::move(c));
  }
  return key;
}

KeySwitchKey KeyGenerator::relinearization_key(const SecretKey& secret) const {
  RnsPoly s_squared = secret.ntt.copy_rows({0, preset_.q_primes.size()});
  multiply_inplace(s_squared, secret.ntt, basis_);
  return switch_key(secret, s_squared, 0);
}

KeySwitchKey KeyGenerator::galois_key(const SecretKey& secret, std::uint64_t galois_element) const {
  RnsPoly s_q = secret.ntt.copy_rows({0, preset_.q_primes.size()});
  RnsPoly s_galois;
  apply_galois_ntt(s_q, galois_ntt_permutation(galois_element, preset_.log_n), s_galois);
  return switch_key(secret, s_galois, galois_element);
}

}  // namespace fhe
