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

std::size_t KeyGenerator::digit_count() const { return key_switch_digits(preset_).size(); }

KeySwitchComponent KeyGenerator::switch_key_component(const SecretKey& secret, std::uint64_t instance,
                                                      std::size_t digit) const {
  const ntt::RowRange own = key_switch_digits(preset_).at(digit);
  // s' on the digit's own Q rows, the only rows where it enters the key.
  RnsPoly s_prime = secret.ntt.copy_rows(own);
  if (instance == 0) {
    multiply_inplace(s_prime, secret.ntt, basis_);  // s^2
  } else {
    RnsPoly s_galois;
    apply_galois_ntt(s_prime, galois_ntt_permutation(instance, preset_.log_n), s_galois);
    s_prime = std::move(s_galois);
  }
  const ntt::RowRange qp_rows{0, preset_.qp_rows()};
  const auto component = static_cast<std::uint32_t>(digit);
  KeySwitchComponent c;
  c.a = RnsPoly(qp_rows.first, qp_rows.count, preset_.n(), true);
  sampler_.fill_uniform(c.a, make_stream_id(RandomPurpose::switch_key_a, instance, component), basis_);
  const auto e = sampler_.gaussian(make_stream_id(RandomPurpose::switch_key_e, instance, component), preset_.n());
  c.b = small_poly_ntt(e, qp_rows, basis_, plan_);
  multiply_sub_inplace(c.b, c.a, secret.ntt, basis_);  // b = e - a s
  // + P s' on the digit's own rows (P mod q_i: the digit idempotent's value there).
  for (std::size_t id = own.first; id < own.first + own.count; ++id) {
    const Modulus<std::uint64_t>& q = basis_.modulus(id);
    std::uint64_t p_mod_q = 1;
    for (std::uint64_t p : preset_.p_primes) p_mod_q = mul_mod(p_mod_q, p % q.value, q);
    std::uint64_t* b = c.b.row(id);
    const std::uint64_t* s = s_prime.row(id);
    for (std::size_t k = 0; k < preset_.n(); ++k) b[k] = add_mod(b[k], mul_mod(p_mod_q, s[k], q), q.value);
  }
  return c;
}

}  // namespace fhe
