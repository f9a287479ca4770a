// radix{4,8,16}_compact on the CPU: one pass per global radix-R digit, then
// the trailing H digits fused in one region, each butterfly reading its R-1
// twiddles from the per-digit layout (radix_layout.h).
#include "fhe/ntt/cpu/fused_pass.h"
#include "fhe/ntt/cpu/row_transform_plan.h"
#include "fhe/ntt/radix_layout.h"

namespace fhe::ntt {
namespace {

class StrictRadixPlan final : public RowTransformPlan<StrictRadixPlan> {
 public:
  StrictRadixPlan(const BackendInfo& backend, NttSchedule schedule,
                  std::span<const std::uint64_t> moduli, WordType word)
      : RowTransformPlan(backend, std::move(schedule), moduli, word),
        layout_(make_radix_layout(log_n(), backend.stages_per_pass)) {
    for (const auto& t : twiddles64()) {
      forward64_.push_back(make_radix_twiddles(layout_, t, true));
      inverse64_.push_back(make_radix_twiddles(layout_, t, false));
    }
    for (const auto& t : twiddles32()) {
      forward32_.push_back(make_radix_twiddles(layout_, t, true));
      inverse32_.push_back(make_radix_twiddles(layout_, t, false));
    }
  }

  template <bool Forward, typename Word>
  void transform(std::uint64_t* row, std::size_t r, const PrimeTwiddles<Word>& t) const {
    const RadixTwiddles<Word>& digit = digit_twiddles<Forward, Word>(r);
    auto twiddle = [&](int stage, std::size_t group) {
      const std::size_t k = layout_.index(stage, group);
      return std::pair<Word, Word>{digit.values[k], digit.companions[k]};
    };
    run_fused_schedule<Word, Forward>(row, schedule(), t, twiddle);
  }

 private:
  template <bool Forward, typename Word>
  const RadixTwiddles<Word>& digit_twiddles(std::size_t r) const {
    if constexpr (sizeof(Word) == 8) {
      return Forward ? forward64_[r] : inverse64_[r];
    } else {
      return Forward ? forward32_[r] : inverse32_[r];
    }
  }

  RadixLayout layout_;
  std::vector<RadixTwiddles<std::uint64_t>> forward64_, inverse64_;
  std::vector<RadixTwiddles<std::uint32_t>> forward32_, inverse32_;
};

}  // namespace

std::unique_ptr<NttPlan> make_cpu_strict_radix_plan(const BackendInfo& backend,
                                                    NttSchedule schedule,
                                                    std::span<const std::uint64_t> moduli,
                                                    WordType word) {
  return std::make_unique<StrictRadixPlan>(backend, std::move(schedule), moduli, word);
}

}  // namespace fhe::ntt
