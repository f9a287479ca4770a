// Public-key and secret-key encryption.
#include "fhe/ckks/encryptor.h"

#include <string>

#include "fhe/ckks/poly_arith.h"
#include "fhe/ckks/random_words.h"
#include "fhe/core/error.h"

namespace fhe {

Encryptor::Encryptor(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan,
                     const Sampler& sampler)
    : preset_(preset), basis_(basis), plan_(plan), sampler_(sampler) {}

Ciphertext Encryptor::encrypt(const Plaintext& plaintext, const PublicKey& key,
                              std::uint64_t index) const {
  const ntt::RowRange rows = plaintext.poly.rows();
  const std::size_t n = preset_.n();
  const RnsPoly u = small_poly_ntt(
      sampler_.ternary(make_stream_id(RandomPurpose::encrypt_u, index, 0), n), rows, basis_, plan_);
  Ciphertext ct{{}, plaintext.level, plaintext.scale};
  for (std::uint32_t part = 0; part < 2; ++part) {
    RnsPoly c = small_poly_ntt(
        sampler_.gaussian(make_stream_id(RandomPurpose::encrypt_e, index, part), n), rows, basis_,
        plan_);
    multiply_add_inplace(c, part == 0 ? key.b : key.a, u, basis_);
    if (part == 0) add_inplace(c, plaintext.poly, basis_);
    ct.parts.push_back(std::move(c));
  }
  return ct;
}

Ciphertext Encryptor::encrypt_symmetric(const Plaintext& plaintext, const SecretKey& key,
                                        std::uint64_t index) const {
  const ntt::RowRange rows = plaintext.poly.rows();
  RnsPoly a(rows.first, rows.count, preset_.n(), true);
  sampler_.fill_uniform(a, make_stream_id(RandomPurpose::symmetric_a, index, 0), basis_);
  RnsPoly c0 = small_poly_ntt(
      sampler_.gaussian(make_stream_id(RandomPurpose::symmetric_e, index, 0), preset_.n()), rows,
      basis_, plan_);
  multiply_sub_inplace(c0, a, key.ntt, basis_);  // e - a s
  add_inplace(c0, plaintext.poly, basis_);
  Ciphertext ct{{}, plaintext.level, plaintext.scale};
  ct.parts.push_back(std::move(c0));
  ct.parts.push_back(std::move(a));
  return ct;
}

}  // namespace fhe
