// Constants and steps of the rounded division by dropped rows.
#include "evaluator/rns_scale_down.h"

#include <algorithm>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

RnsScaleDown make_rns_scale_down(const Preset& preset, std::vector<ntt::RowRange> dropped_rows,
                                 ntt::RowRange kept_rows) {
  const std::vector<std::uint64_t> primes = preset.qp_primes();
  const auto outside = [&](ntt::RowRange r) { return r.first + r.count > primes.size(); };
  const auto overlap = [](ntt::RowRange a, ntt::RowRange b) {
    return a.first < b.first + b.count && b.first < a.first + a.count;
  };
  std::vector<std::uint64_t> dropped;
  for (const ntt::RowRange& r : dropped_rows) {
    if (outside(r)) throw InvalidArgument("scale down: rows outside preset " + preset.name);
    if (overlap(r, kept_rows)) throw InvalidArgument("scale down: a row both dropped and kept");
    dropped.insert(dropped.end(), primes.begin() + r.first, primes.begin() + r.first + r.count);
  }
  if (outside(kept_rows)) throw InvalidArgument("scale down: rows outside preset " + preset.name);
  const std::vector<std::uint64_t> kept(primes.begin() + kept_rows.first,
                                        primes.begin() + kept_rows.first + kept_rows.count);
  std::vector<std::size_t> offsets(kept.size());
  for (std::size_t t = 0; t < offsets.size(); ++t) offsets[t] = t;

  RnsScaleDown s;
  s.dropped_rows = std::move(dropped_rows);
  s.kept_rows = kept_rows;
  s.dropped_to_kept = make_basis_conversion(dropped, kept, std::move(offsets));
  for (std::uint64_t q : kept) {
    std::uint64_t product = 1;
    for (std::uint64_t d : dropped) product = mul_mod_exact<std::uint64_t>(product, d % q, q);
    s.inverse_mod_kept.push_back(inv_mod<std::uint64_t>(product, q));
    s.inverse_mod_kept_shoup.push_back(shoup_companion<std::uint64_t>(s.inverse_mod_kept.back(), q));
  }
  return s;
}

void check_rescalable(const Preset& preset, int level, const char* op, const char* operand) {
  preset.active_q_rows(level);  // a level of the preset (throws otherwise)
  if (level >= preset.levels) {
    throw InvalidArgument(std::string(op) + ": the " + operand + " is at the last level " + std::to_string(level) +
                          " of preset " + preset.name + " (only the base prime is left)");
  }
}

namespace {

// Rows level + 1 .. L, after a rescale of `level`.
ntt::RowRange rows_after_rescale(const Preset& preset, int level) {
  if (level < 0) throw InvalidArgument("rescale: level " + std::to_string(level) + " is negative");
  check_rescalable(preset, level, "rescale", "ciphertext");
  const auto first = static_cast<std::size_t>(level);
  return {first + 1, preset.q_primes.size() - first - 1};
}

}  // namespace

RnsScaleDown make_rescale(const Preset& preset, int level) {
  const ntt::RowRange kept = rows_after_rescale(preset, level);
  return make_rns_scale_down(preset, {{kept.first - 1, 1}}, kept);
}

RnsScaleDown make_mod_down_rescale(const Preset& preset, int level) {
  const ntt::RowRange kept = rows_after_rescale(preset, level);
  return make_rns_scale_down(preset, {{preset.q_primes.size(), preset.p_primes.size()}, {kept.first - 1, 1}},
                             kept);
}

std::size_t RnsScaleDown::dropped_count() const {
  std::size_t count = 0;
  for (const ntt::RowRange& r : dropped_rows) count += r.count;
  return count;
}

void RnsScaleDown::apply(const ntt::NttPlan& plan, const std::uint64_t* kept_ntt,
                         const std::uint64_t* dropped_ntt, std::uint64_t* out,
                         std::vector<std::uint64_t>& scratch) const {
  const std::size_t n = plan.n();
  const std::size_t d_count = dropped_count(), k_count = kept_rows.count;
  const std::size_t needed = (2 * d_count + k_count) * n;
  if (scratch.size() < needed) scratch.resize(needed);
  std::uint64_t* dropped = scratch.data();              // d_count rows
  std::uint64_t* converted = dropped + d_count * n;     // k_count rows
  std::uint64_t* conversion_scratch = converted + k_count * n;  // d_count rows

  std::copy_n(dropped_ntt, d_count * n, dropped);
  std::uint64_t* range_rows = dropped;
  for (const ntt::RowRange& r : dropped_rows) {
    plan.inverse(range_rows, r);
    range_rows += r.count * n;
  }
  dropped_to_kept.convert(dropped, converted, conversion_scratch, n);
  plan.forward(converted, kept_rows);
  for (std::size_t r = 0; r < k_count; ++r) {
    const std::uint64_t q = dropped_to_kept.target_moduli[r].value;
    const std::uint64_t w = inverse_mod_kept[r], w_shoup = inverse_mod_kept_shoup[r];
    const std::uint64_t* x = kept_ntt + r * n;
    const std::uint64_t* c = converted + r * n;
    std::uint64_t* y = out + r * n;
    for (std::size_t k = 0; k < n; ++k) y[k] = mul_shoup(sub_mod(x[k], c[k], q), w, w_shoup, q);
  }
}

}  // namespace fhe
