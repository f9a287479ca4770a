// CudaEvaluator's key-switching steps: the ModUp (extend: the input's
// inverse, every digit's conversion, their batched forward), the ModDown
// (mod_down_parts: begin_mod_down and its finish), a fused key switch whose
// ModDown starts beside its key product, and the ModDowns of extended sums.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "evaluator/cuda/cuda_evaluator.h"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/region_key_product.h"
#include "evaluator/cuda/region_scale_down.h"
#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "fhe/ntt/cuda/cuda_plans.h"

namespace fhe {

std::optional<ntt::gpu::ForwardRegion> CudaEvaluator::extend(const std::uint64_t* input, int level,
                                                             bool leave_region) const {
  // The input's rows to coefficient form in the workspace; the input stays
  // in NTT form (the digits' own rows are read from it).
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  inverse_into(input, rows * n_, coefficients_.data(), {static_cast<std::size_t>(level), rows}, 1, stream());
  return extend_inverted(input, coefficients_.data(), level, leave_region);
}

std::optional<ntt::gpu::ForwardRegion> CudaEvaluator::extend_inverted(const std::uint64_t* input,
                                                                      const std::uint64_t* coefficients, int level,
                                                                      bool leave_region) const {
  const cuda::LevelConstants& c = level_constants(level);
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  const std::size_t ext_rows = rows + p_rows_;
  std::uint64_t* ext = extended_.data();
  const ntt::RowRange ext_range{static_cast<std::size_t>(level), ext_rows};
  const auto digits = static_cast<std::size_t>(c.digit_count);
  const bool fused =
      leave_region && c.digit_count >= cuda::kMinFusedDigits && c.digit_count <= cuda::kMaxFusedDigits;
  // The last digits of one prime each are lifted by the forward's first
  // pass as it loads their row, where that takes no launch of its own
  // (ntt::forward_lift_keeps_launches): their extended rows are then not
  // written by the conversion and read back.
  const ntt::gpu::CentredLift* lift = nullptr;
  ntt::gpu::CentredLift mod_up_lift = c.mod_up_lift;
  if (c.lifted_digits > 0 && ntt::forward_lift_keeps_launches(plan_, ext_range, digits, fused)) {
    mod_up_lift.rows = coefficients + c.lifted_first_row * n_;
    lift = &mod_up_lift;
  }
  // The other digits' ModUp in one launch (grid.y = digit), to the rows
  // other than their own; the coefficients they read are scratch read last
  // there.
  const int converted = lift ? c.digit_count - c.lifted_digits : c.digit_count;
  if (converted > 0) {
    cuda::launch_conversion(c.mod_up, 1, coefficients, 0, ext, ext_rows * n_, converted,
                            static_cast<int>(ext_rows), c.max_digit_rows, log_n_, stream(), true);
  }
  // All digits' extended polynomials in one batched transform (one launch
  // per pass instead of one per digit and pass), skipping each digit's own
  // rows: they are the input's, in NTT form already.
  if (fused) {
    auto region = ntt::forward_batch_before_region(plan_, ext, ext_range, digits, {stream()}, c.own_row_starts, lift);
    if (region) return region;
  }
  ntt::forward_batch_skipping(plan_, ext, ext_range, digits, c.own_row_starts, {stream()}, lift);
  cuda::launch_copy_own_rows(input, ext, c.own_row_starts, c.digit_count, rows, ext_rows, log_n_, stream());
  return std::nullopt;
}

void CudaEvaluator::mod_down_parts(int level, std::span<const ModDownPart> parts, std::uint64_t* p_rows) const {
  end_mod_down(begin_mod_down(level, parts.size(), p_rows, stream()), level, parts);
}

void CudaEvaluator::inverse_into(const std::uint64_t* source, std::size_t source_words, std::uint64_t* data,
                                ntt::RowRange rows, std::size_t batch, cudaStream_t s) const {
  if (ntt::inverse_batch_out_of_place(plan_, source, data, rows, batch, {s}, source_words)) return;
  const std::size_t block_bytes = rows.count * n_ * 8;
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(data, block_bytes, source, source_words * 8, block_bytes, batch,
                                   cudaMemcpyDeviceToDevice, s));
  plan_.inverse_batch(data, rows, batch, {s});
}

std::optional<ntt::gpu::ForwardRegion> CudaEvaluator::begin_mod_down(int level, std::size_t count,
                                                                     std::uint64_t* p_rows, cudaStream_t s,
                                                                     const std::uint64_t* p_source,
                                                                     std::size_t p_source_words) const {
  const cuda::LevelConstants& c = level_constants(level);
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  std::uint64_t* conv = converted_.data();
  // Every part's P rows to coefficient form in one batch, convert to the Q
  // rows in one launch, back to NTT form in one batch.
  const ntt::RowRange p_range{q_rows_, p_rows_};
  if (p_source) {
    inverse_into(p_source, p_source_words, p_rows, p_range, count, s);
  } else {
    plan_.inverse_batch(p_rows, p_range, count, {s});
  }
  cuda::launch_conversion(c.mod_down.conversion, p_rows, p_rows_ * n_, conv, rows * n_, static_cast<int>(count),
                          log_n_, s);
  return forward_for_finish(conv, {static_cast<std::size_t>(level), rows}, count, s);
}

void CudaEvaluator::end_mod_down(const std::optional<ntt::gpu::ForwardRegion>& region, int level,
                                 std::span<const ModDownPart> parts) const {
  static_assert(2 * kHoistedRotationsPerLaunch <= cuda::kMaxScaleDownItems);
  const cuda::LevelConstants& c = level_constants(level);
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level), count = parts.size();
  std::uint64_t* conv = converted_.data();
  cuda::ScaleDownItem items[cuda::kMaxScaleDownItems];
  for (std::size_t i = 0; i < count; ++i) {
    items[i] = {parts[i].x, conv + i * rows * n_, parts[i].out, parts[i].addend, parts[i].x_scratch};
  }
  finish_scale_down(region, c.mod_down, {static_cast<std::size_t>(level), rows}, items, count);
}

void CudaEvaluator::fused_key_switch(const ntt::gpu::ForwardRegion& region, const cuda::RotationTerm& term,
                                     const cuda::ExtendedSumArgs& args, const cuda::TermOutput& out,
                                     std::span<const ModDownPart> parts) const {
  const auto level = static_cast<int>(args.first_row);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  FHE_CUDA_CHECK(cudaStreamIsCapturing(stream(), &capture));
  if (capture != cudaStreamCaptureStatusActive) {
    // Eager: one stream, where each launch starts early behind the one
    // before it (programmatic launches); an event between two launches
    // stops that, and the fork below cost 0.1-1.6 % eagerly on the H200.
    cuda::launch_region_key_product(region, term, args, out, stream());
    return mod_down_parts(level, parts, out.p_block);
  }
  // Captured: the graph's edges keep the early starts, and the ModDown's
  // first half, forked after the P rows' product, fills the SMs the Q rows'
  // product leaves in its last wave (a level-0 key switch replayed -0.7 to
  // -1.0 %, level 17 -2.8 to -3.2 %; docs/performance.md, session 42).
  const cudaStream_t side = side_stream_.get();
  fork_.order(stream(), side);
  cuda::launch_region_key_product(region, term, args, out, side, ntt::RowRange{args.q_rows, p_rows_});
  const auto finish_region = begin_mod_down(level, parts.size(), out.p_block, side);
  cuda::launch_region_key_product(region, term, args, out, stream(), ntt::RowRange{0, args.q_rows});
  join_.order(side, stream());
  end_mod_down(finish_region, level, parts);
}

std::optional<ntt::gpu::ForwardRegion> CudaEvaluator::forward_for_finish(std::uint64_t* converted,
                                                                         ntt::RowRange kept, std::size_t count,
                                                                         cudaStream_t s) const {
  // The forward transform's last pass is left to the finish where the plan
  // ends in the shared-memory region (every backend but radix2_indexed),
  // and the global pass before it where the plan would fuse the two.
  if (auto region = ntt::forward_batch_before_region(plan_, converted, kept, count, {s}, nullptr, nullptr, true)) {
    return region;
  }
  plan_.forward_batch(converted, kept, count, {s});
  return std::nullopt;
}

void CudaEvaluator::finish_scale_down(const std::optional<ntt::gpu::ForwardRegion>& region,
                                      const cuda::DeviceScaleDown& scale_down, ntt::RowRange kept,
                                      const cuda::ScaleDownItem* items, std::size_t count) const {
  if (region) {
    cuda::launch_region_scale_down(*region, scale_down, items, static_cast<int>(count), stream());
    return;
  }
  cuda::launch_scale_down_finish(scale_down, items, static_cast<int>(count), kept.first, log_n_, moduli_.data(),
                                 stream());
}

void CudaEvaluator::mod_down(const CudaCiphertext& extended_sum, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_extended(extended_sum, "mod_down", 2);
  if (extended_sum.parts != 2) throw InvalidArgument("mod_down: a 2-part extended sum was expected");
  check_output(out, "mod_down", 2, extended_sum.level);
  const int level = extended_sum.level;
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  out.parts = 2;
  out.level = level;
  out.scale = extended_sum.scale;
  const ModDownPart parts[2] = {{extended_sum.part(0), out.part(0), nullptr},
                                {extended_sum.part(1), out.part(1), nullptr}};
  // The parts' P rows' inverse reads them where they are and writes them
  // back to back into the workspace, as the conversion wants them: the sum
  // stays intact.
  const auto region = begin_mod_down(level, 2, accumulators_.data(), stream(), extended_sum.part(0) + rows * n_,
                                     extended_sum.part_words());
  end_mod_down(region, level, parts);
}

void CudaEvaluator::mod_down_rescale(const CudaCiphertext& extended_sum, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  const char* op = "mod_down_rescale";
  check_extended(extended_sum, op, 2);
  if (extended_sum.parts != 2) throw InvalidArgument(std::string(op) + ": a 2-part extended sum was expected");
  const Preset& preset = engine_.preset();
  const int level = extended_sum.level;
  check_rescalable(preset, level, op, "extended sum");
  check_output(out, op, 2, level + 1);
  const cuda::LevelConstants& c = level_constants(level);
  const auto first = static_cast<std::size_t>(level);
  const std::size_t kept = q_rows_ - first - 1, sources = p_rows_ + 1;
  const std::size_t part_words = extended_sum.part_words();
  // In accumulators_: both parts' P rows, both parts' row `level` (each set
  // back to back, each inverse reading the parts' rows where they are), then
  // per part the conversion's sources in the schedule's order (P rows, row
  // `level`).
  if ((4 * p_rows_ + 4) * n_ > accumulators_.size()) throw std::logic_error("mod_down_rescale: workspace too small");
  std::uint64_t* p_rows = accumulators_.data();
  std::uint64_t* level_rows = p_rows + 2 * p_rows_ * n_;
  std::uint64_t* source = level_rows + 2 * n_;
  inverse_into(extended_sum.part(0) + (kept + 1) * n_, part_words, p_rows, {q_rows_, p_rows_}, 2, stream());
  inverse_into(extended_sum.part(0), part_words, level_rows, {first, 1}, 2, stream());
  cuda::WordCopy copies[4];
  for (std::size_t p = 0; p < 2; ++p) {
    std::uint64_t* to = source + p * sources * n_;
    copies[2 * p] = {p_rows + p * p_rows_ * n_, to, p_rows_ * n_};
    copies[2 * p + 1] = {level_rows + p * n_, to + p_rows_ * n_, n_};
  }
  cuda::launch_copy_words(copies, 4, stream());
  out.parts = 2;
  out.level = level + 1;
  out.scale = extended_sum.scale / static_cast<double>(preset.q_primes[first]);
  std::uint64_t* conv = converted_.data();
  cuda::launch_conversion(c.mod_down_rescale.conversion, source, sources * n_, conv, kept * n_, 2, log_n_, stream());
  cuda::ScaleDownItem items[2];
  for (std::size_t p = 0; p < 2; ++p) {
    items[p] = {extended_sum.part(p) + n_, conv + p * kept * n_, out.part(p), nullptr};
  }
  const ntt::RowRange kept_rows{first + 1, kept};
  finish_scale_down(forward_for_finish(conv, kept_rows, 2, stream()), c.mod_down_rescale, kept_rows, items, 2);
}

}  // namespace fhe
