// Adapter from CpuPlan's four per-row virtuals (direction x word type) to one
// member template `transform<Forward>(row, row_index, twiddles)` of the
// backend, so each backend writes its transform once.
#pragma once

#include "fhe/ntt/cpu/cpu_plan.h"

namespace fhe::ntt {

template <typename Backend>
class RowTransformPlan : public CpuPlan {
 public:
  using CpuPlan::CpuPlan;

 protected:
  void forward_row(std::uint64_t* row, std::size_t r,
                   const PrimeTwiddles<std::uint64_t>& t) const final {
    backend_impl().template transform<true>(row, r, t);
  }
  void forward_row(std::uint64_t* row, std::size_t r,
                   const PrimeTwiddles<std::uint32_t>& t) const final {
    backend_impl().template transform<true>(row, r, t);
  }
  void inverse_row(std::uint64_t* row, std::size_t r,
                   const PrimeTwiddles<std::uint64_t>& t) const final {
    backend_impl().template transform<false>(row, r, t);
  }
  void inverse_row(std::uint64_t* row, std::size_t r,
                   const PrimeTwiddles<std::uint32_t>& t) const final {
    backend_impl().template transform<false>(row, r, t);
  }

 private:
  const Backend& backend_impl() const { return static_cast<const Backend&>(*this); }
};

}  // namespace fhe::ntt
