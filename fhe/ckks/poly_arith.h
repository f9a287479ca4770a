// Coefficient-wise arithmetic on RNS polynomials. Every operation runs over
// the rows of its first argument; the other operands must hold those rows
// (they may hold more, e.g. a key over all QP rows times a level-l part).
#pragma once

#include <cstdint>
#include <span>

#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/rns_poly.h"
#include "fhe/ntt/backend.h"

namespace fhe {

void add_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis);
void sub_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis);
void negate_inplace(RnsPoly& a, const RnsBasis& basis);
// Pointwise product; both operands in NTT form.
void multiply_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis);
// acc += a * b pointwise; all in NTT form.
void multiply_add_inplace(RnsPoly& acc, const RnsPoly& a, const RnsPoly& b, const RnsBasis& basis);
// acc -= a * b pointwise; all in NTT form (b = e - a s of keys and
// encryptions, without a temporary product).
void multiply_sub_inplace(RnsPoly& acc, const RnsPoly& a, const RnsPoly& b, const RnsBasis& basis);
// Writes small signed integers (|c| < every row's prime) into every row of
// `out`, in coefficient form.
void set_small_coefficients(RnsPoly& out, std::span<const std::int8_t> coefficients,
                            const RnsBasis& basis);
// Small signed coefficients (secret, error, u) as an NTT-form polynomial over `rows`.
RnsPoly small_poly_ntt(std::span<const std::int8_t> coefficients, ntt::RowRange rows,
                       const RnsBasis& basis, const ntt::NttPlan& plan);

}  // namespace fhe
