// radix2_indexed on the CPU: one radix-2 stage per pass over the row, with
// lazy Harvey butterflies and Shoup companions. This is the correctness
// oracle of every other backend and the CPU default, so it is kept plain
// and fast. Stage s reads its own slice forward[2^s .. 2^(s+1)) of the
// expanded tables, the same (position, twiddle) pairs that the CUDA kernel
// reads through its per-butterfly index tables.
//
// Speed (docs/performance.md): the stages with half-size 1 and 2 get their
// own loops (a generic inner loop of one or two iterations is mostly loop
// overhead), and the final reduction (forward) or N^-1 scaling (inverse) is
// folded into the last stage instead of costing another pass over memory.
#include "fhe/ntt/cpu/fused_pass.h"
#include "fhe/ntt/cpu/row_transform_plan.h"

namespace fhe::ntt {
namespace {

// One radix-2 stage with `groups` groups of half-size `half` (generic loop).
template <bool Forward, typename Word>
inline void radix2_stage(std::uint64_t* row, std::size_t groups, std::size_t half,
                         const PrimeTwiddles<Word>& t) {
  const auto& values = Forward ? t.forward : t.inverse;
  const auto& companions = Forward ? t.forward_shoup : t.inverse_shoup;
  for (std::size_t group = 0; group < groups; ++group) {
    const Word w = values[groups + group];
    const Word w_shoup = companions[groups + group];
    std::uint64_t* top = row + 2 * group * half;
    std::uint64_t* bottom = top + half;
    for (std::size_t j = 0; j < half; ++j) {
      Word x = static_cast<Word>(top[j]), y = static_cast<Word>(bottom[j]);
      if constexpr (Forward) {
        forward_butterfly<Word>(x, y, w, w_shoup, t.q);
      } else {
        inverse_butterfly<Word>(x, y, w, w_shoup, t.q);
      }
      top[j] = x;
      bottom[j] = y;
    }
  }
}

template <typename Word>
void indexed_forward(std::uint64_t* row, const PrimeTwiddles<Word>& t, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const Word q = t.q;
  for (int stage = 0; stage + 2 < log_n; ++stage) {
    radix2_stage<true, Word>(row, std::size_t{1} << stage, n >> (stage + 1), t);
  }
  if (log_n >= 2) {  // half-size 2
    const std::size_t groups = n / 4;
    for (std::size_t group = 0; group < groups; ++group) {
      const Word w = t.forward[groups + group], w_shoup = t.forward_shoup[groups + group];
      std::uint64_t* p = row + 4 * group;
      Word a = static_cast<Word>(p[0]), b = static_cast<Word>(p[1]);
      Word c = static_cast<Word>(p[2]), d = static_cast<Word>(p[3]);
      forward_butterfly<Word>(a, c, w, w_shoup, q);
      forward_butterfly<Word>(b, d, w, w_shoup, q);
      p[0] = a, p[1] = b, p[2] = c, p[3] = d;
    }
  }
  // Half-size 1, with the reduction into [0, q) folded in.
  const std::size_t groups = n / 2;
  for (std::size_t group = 0; group < groups; ++group) {
    const Word w = t.forward[groups + group], w_shoup = t.forward_shoup[groups + group];
    Word x = static_cast<Word>(row[2 * group]), y = static_cast<Word>(row[2 * group + 1]);
    forward_butterfly<Word>(x, y, w, w_shoup, q);
    row[2 * group] = reduce_from_4q<Word>(x, q);
    row[2 * group + 1] = reduce_from_4q<Word>(y, q);
  }
}

template <typename Word>
void indexed_inverse(std::uint64_t* row, const PrimeTwiddles<Word>& t, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const Word q = t.q;
  const Word two_q = 2 * q;
  {  // half-size 1
    const std::size_t groups = n / 2;
    for (std::size_t group = 0; group < groups; ++group) {
      const Word w = t.inverse[groups + group], w_shoup = t.inverse_shoup[groups + group];
      Word x = static_cast<Word>(row[2 * group]), y = static_cast<Word>(row[2 * group + 1]);
      inverse_butterfly<Word>(x, y, w, w_shoup, q);
      row[2 * group] = x;
      row[2 * group + 1] = y;
    }
  }
  if (log_n >= 2) {  // half-size 2
    const std::size_t groups = n / 4;
    for (std::size_t group = 0; group < groups; ++group) {
      const Word w = t.inverse[groups + group], w_shoup = t.inverse_shoup[groups + group];
      std::uint64_t* p = row + 4 * group;
      Word a = static_cast<Word>(p[0]), b = static_cast<Word>(p[1]);
      Word c = static_cast<Word>(p[2]), d = static_cast<Word>(p[3]);
      inverse_butterfly<Word>(a, c, w, w_shoup, q);
      inverse_butterfly<Word>(b, d, w, w_shoup, q);
      p[0] = a, p[1] = b, p[2] = c, p[3] = d;
    }
  }
  for (int stage = log_n - 3; stage >= 1; --stage) {
    radix2_stage<false, Word>(row, std::size_t{1} << stage, n >> (stage + 1), t);
  }
  if (log_n < 3) {
    finish_inverse<Word>(row, n, t);  // tiny rings: no folded last stage
    return;
  }
  // Stage 0 (one group, half N/2) with N^-1 folded in: x' = (u + v) / N and
  // y' = (u - v) * w / N, using the precomputed product w / N.
  const Word n_inv = t.n_inverse, n_inv_shoup = t.n_inverse_shoup;
  const Word w_n_inv = mul_shoup<Word>(t.inverse[1], n_inv, n_inv_shoup, q);
  const Word w_n_inv_shoup = shoup_companion<Word>(w_n_inv, q);
  std::uint64_t* top = row;
  std::uint64_t* bottom = row + n / 2;
  for (std::size_t j = 0; j < n / 2; ++j) {
    const Word u = static_cast<Word>(top[j]), v = static_cast<Word>(bottom[j]);
    top[j] = mul_shoup<Word>(u + v, n_inv, n_inv_shoup, q);
    bottom[j] = mul_shoup<Word>(u - v + two_q, w_n_inv, w_n_inv_shoup, q);
  }
}

class IndexedPlan final : public RowTransformPlan<IndexedPlan> {
 public:
  using RowTransformPlan::RowTransformPlan;

  template <bool Forward, typename Word>
  void transform(std::uint64_t* row, std::size_t, const PrimeTwiddles<Word>& t) const {
    if constexpr (Forward) {
      indexed_forward(row, t, log_n());
    } else {
      indexed_inverse(row, t, log_n());
    }
  }
};

}  // namespace

std::unique_ptr<NttPlan> make_cpu_indexed_plan(const BackendInfo& backend, NttSchedule schedule,
                                               std::span<const std::uint64_t> moduli,
                                               WordType word) {
  return std::make_unique<IndexedPlan>(backend, std::move(schedule), moduli, word);
}

}  // namespace fhe::ntt
