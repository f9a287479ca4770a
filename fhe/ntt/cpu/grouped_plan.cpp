// radix2_compact_group{4,8,16}_smem8 on the CPU: global passes of g fused
// radix-2 stages reading the compact bit-reversed twiddle row, then the last
// 8 stages as one pass over contiguous 256-word tiles (the shared-memory
// region of the CUDA kernels).
#include "fhe/ntt/cpu/fused_pass.h"
#include "fhe/ntt/cpu/row_transform_plan.h"

namespace fhe::ntt {
namespace {

class GroupedPlan final : public RowTransformPlan<GroupedPlan> {
 public:
  using RowTransformPlan::RowTransformPlan;

  template <bool Forward, typename Word>
  void transform(std::uint64_t* row, std::size_t, const PrimeTwiddles<Word>& t) const {
    const auto& values = Forward ? t.forward : t.inverse;
    const auto& companions = Forward ? t.forward_shoup : t.inverse_shoup;
    auto twiddle = [&](int stage, std::size_t group) {
      const std::size_t k = (std::size_t{1} << stage) + group;
      return std::pair<Word, Word>{values[k], companions[k]};
    };
    run_fused_schedule<Word, Forward>(row, schedule(), t, twiddle);
  }
};

}  // namespace

std::unique_ptr<NttPlan> make_cpu_grouped_plan(const BackendInfo& backend, NttSchedule schedule,
                                               std::span<const std::uint64_t> moduli,
                                               WordType word) {
  return std::make_unique<GroupedPlan>(backend, std::move(schedule), moduli, word);
}

}  // namespace fhe::ntt
