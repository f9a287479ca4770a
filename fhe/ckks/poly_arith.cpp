// Row loops of the coefficient-wise RNS arithmetic.
#include "fhe/ckks/poly_arith.h"

#include <string>

#include "fhe/ckks/random_words.h"
#include "fhe/core/error.h"

namespace fhe {
namespace {

void check_operand(const RnsPoly& a, const RnsPoly& b, const char* op) {
  if (a.n() != b.n() || !b.has_row(a.first_row()) || (a.row_count() > 0 && !b.has_row(a.end_row() - 1))) {
    throw InvalidArgument(std::string(op) + ": operand rows [" + std::to_string(b.first_row()) +
                          ", " + std::to_string(b.end_row()) + ") do not cover rows [" +
                          std::to_string(a.first_row()) + ", " + std::to_string(a.end_row()) +
                          ") or N differs");
  }
  if (a.ntt_form() != b.ntt_form()) {
    throw InvalidArgument(std::string(op) + ": operands are in different forms (NTT vs coefficient)");
  }
}

// Applies op(x, y, modulus) -> new x to every word of a's rows.
template <typename Op>
void for_each_pair(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis, const char* name, Op op) {
  check_operand(a, b, name);
  const std::size_t n = a.n();
  for (std::size_t id = a.first_row(); id < a.end_row(); ++id) {
    const Modulus<std::uint64_t>& m = basis.modulus(id);
    std::uint64_t* x = a.row(id);
    const std::uint64_t* y = b.row(id);
    for (std::size_t k = 0; k < n; ++k) x[k] = op(x[k], y[k], m);
  }
}

// acc = combine(acc, a * b mod q, q) word by word; all in NTT form.
template <typename Combine>
void for_each_product(RnsPoly& acc, const RnsPoly& a, const RnsPoly& b, const RnsBasis& basis, const char* name,
                      Combine combine) {
  check_operand(acc, a, name);
  check_operand(acc, b, name);
  if (!acc.ntt_form()) throw InvalidArgument(std::string(name) + ": operands must be in NTT form");
  for (std::size_t id = acc.first_row(); id < acc.end_row(); ++id) {
    const Modulus<std::uint64_t>& m = basis.modulus(id);
    std::uint64_t* z = acc.row(id);
    const std::uint64_t* x = a.row(id);
    const std::uint64_t* y = b.row(id);
    for (std::size_t k = 0; k < acc.n(); ++k) z[k] = combine(z[k], mul_mod(x[k], y[k], m), m.value);
  }
}

}  // namespace

void add_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis) {
  for_each_pair(a, b, basis, "add", [](std::uint64_t x, std::uint64_t y, const Modulus<std::uint64_t>& m) {
    return add_mod(x, y, m.value);
  });
}

void sub_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis) {
  for_each_pair(a, b, basis, "sub", [](std::uint64_t x, std::uint64_t y, const Modulus<std::uint64_t>& m) {
    return sub_mod(x, y, m.value);
  });
}

void negate_inplace(RnsPoly& a, const RnsBasis& basis) {
  for (std::size_t id = a.first_row(); id < a.end_row(); ++id) {
    const std::uint64_t q = basis.prime(id);
    std::uint64_t* x = a.row(id);
    for (std::size_t k = 0; k < a.n(); ++k) x[k] = neg_mod(x[k], q);
  }
}

void multiply_inplace(RnsPoly& a, const RnsPoly& b, const RnsBasis& basis) {
  if (!a.ntt_form()) throw InvalidArgument("multiply: operands must be in NTT form");
  for_each_pair(a, b, basis, "multiply", [](std::uint64_t x, std::uint64_t y, const Modulus<std::uint64_t>& m) {
    return mul_mod(x, y, m);
  });
}

void multiply_add_inplace(RnsPoly& acc, const RnsPoly& a, const RnsPoly& b, const RnsBasis& basis) {
  for_each_product(acc, a, b, basis, "multiply_add", [](std::uint64_t z, std::uint64_t product, std::uint64_t q) {
    return add_mod(z, product, q);
  });
}

void multiply_sub_inplace(RnsPoly& acc, const RnsPoly& a, const RnsPoly& b, const RnsBasis& basis) {
  for_each_product(acc, a, b, basis, "multiply_sub", [](std::uint64_t z, std::uint64_t product, std::uint64_t q) {
    return sub_mod(z, product, q);
  });
}

void set_small_coefficients(RnsPoly& out, std::span<const std::int8_t> coefficients,
                            const RnsBasis& basis) {
  if (coefficients.size() != out.n()) {
    throw InvalidArgument("set_small_coefficients: " + std::to_string(coefficients.size()) +
                          " coefficients for N = " + std::to_string(out.n()));
  }
  for (std::size_t id = out.first_row(); id < out.end_row(); ++id) {
    const std::uint64_t q = basis.prime(id);
    std::uint64_t* x = out.row(id);
    for (std::size_t k = 0; k < out.n(); ++k) x[k] = small_coefficient_word(coefficients[k], q);
  }
  out.set_ntt_form(false);
}

RnsPoly small_poly_ntt(std::span<const std::int8_t> coefficients, ntt::RowRange rows,
                       const RnsBasis& basis, const ntt::NttPlan& plan) {
  RnsPoly poly(rows.first, rows.count, plan.n(), false);
  set_small_coefficients(poly, coefficients, basis);
  plan.forward(poly.data(), rows);
  poly.set_ntt_form(true);
  return poly;
}

}  // namespace fhe
