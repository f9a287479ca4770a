// radix2_indexed on the CPU: one radix-2 stage per pass over the row, with
// lazy Harvey butterflies and Shoup companions. This is the correctness
// oracle of every other backend and the CPU default, so it is kept plain
// and fast. Stage s reads its own slice forward[2^s .. 2^(s+1)) of the
// expanded tables, the same (position, twiddle) pairs that the CUDA kernel
// reads through its per-butterfly index tables.
#include "fhe/ntt/cpu/cpu_plan.h"
#include "fhe/ntt/cpu/fused_pass.h"

namespace fhe::ntt {
namespace {

template <typename Word>
void indexed_forward(std::uint64_t* row, const PrimeTwiddles<Word>& t, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const Word q = t.q;
  for (int stage = 0; stage < log_n; ++stage) {
    const std::size_t groups = std::size_t{1} << stage;
    const std::size_t half = n >> (stage + 1);
    for (std::size_t group = 0; group < groups; ++group) {
      const Word w = t.forward[groups + group];
      const Word w_shoup = t.forward_shoup[groups + group];
      std::uint64_t* top = row + 2 * group * half;
      std::uint64_t* bottom = top + half;
      for (std::size_t j = 0; j < half; ++j) {
        Word x = static_cast<Word>(top[j]), y = static_cast<Word>(bottom[j]);
        forward_butterfly<Word>(x, y, w, w_shoup, q);
        top[j] = x;
        bottom[j] = y;
      }
    }
  }
  finish_forward<Word>(row, n, t);
}

template <typename Word>
void indexed_inverse(std::uint64_t* row, const PrimeTwiddles<Word>& t, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const Word q = t.q;
  for (int stage = log_n - 1; stage >= 0; --stage) {
    const std::size_t groups = std::size_t{1} << stage;
    const std::size_t half = n >> (stage + 1);
    for (std::size_t group = 0; group < groups; ++group) {
      const Word w = t.inverse[groups + group];
      const Word w_shoup = t.inverse_shoup[groups + group];
      std::uint64_t* top = row + 2 * group * half;
      std::uint64_t* bottom = top + half;
      for (std::size_t j = 0; j < half; ++j) {
        Word x = static_cast<Word>(top[j]), y = static_cast<Word>(bottom[j]);
        inverse_butterfly<Word>(x, y, w, w_shoup, q);
        top[j] = x;
        bottom[j] = y;
      }
    }
  }
  finish_inverse<Word>(row, n, t);
}

class IndexedPlan final : public CpuPlan {
 public:
  using CpuPlan::CpuPlan;

 protected:
  void forward_row(std::uint64_t* row, std::size_t, const PrimeTwiddles<std::uint64_t>& t) const override {
    indexed_forward(row, t, log_n());
  }
  void forward_row(std::uint64_t* row, std::size_t, const PrimeTwiddles<std::uint32_t>& t) const override {
    indexed_forward(row, t, log_n());
  }
  void inverse_row(std::uint64_t* row, std::size_t, const PrimeTwiddles<std::uint64_t>& t) const override {
    indexed_inverse(row, t, log_n());
  }
  void inverse_row(std::uint64_t* row, std::size_t, const PrimeTwiddles<std::uint32_t>& t) const override {
    indexed_inverse(row, t, log_n());
  }
};

}  // namespace

std::unique_ptr<NttPlan> make_cpu_indexed_plan(const BackendInfo& backend, NttSchedule schedule,
                                               std::span<const std::uint64_t> moduli,
                                               WordType word) {
  return std::make_unique<IndexedPlan>(backend, std::move(schedule), moduli, word);
}

}  // namespace fhe::ntt
