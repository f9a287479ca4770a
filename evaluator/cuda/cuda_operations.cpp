// CudaEvaluator's operations on ciphertexts: additions, plaintext and
// ciphertext products, relinearization, rescale, level drop and decryption.
#include <algorithm>
#include <string>

#include "evaluator/cuda/cuda_evaluator.h"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/operand_checks.h"
#include "evaluator/cuda/region_key_product.h"
#include "evaluator/cuda/region_scale_down.h"
#include "fhe/core/error.h"
#include "fhe/ntt/cuda/cuda_plans.h"

namespace fhe {

void CudaEvaluator::add(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  cuda::check_parts(a, 2, 3, "add", engine_);
  cuda::check_parts(b, 2, 3, "add", engine_);
  cuda::check_binary(a, b, "add", engine_, cuda::Combination::sum);
  if (a.max_rows() == qp_rows_ || b.max_rows() == qp_rows_) {
    // Two extended sums (accumulate_rotations) add like ciphertexts over their rows.
    check_extended(a, "add", a.parts);
    check_extended(b, "add", b.parts);
    check_extended(out, "add", std::max(a.parts, b.parts));
  } else {
    check_operand(a, 2, 3, "add");
    check_operand(b, 2, 3, "add");
    check_output(out, "add", std::max(a.parts, b.parts), a.level);
  }
  const CudaCiphertext& longer = a.parts >= b.parts ? a : b;
  const CudaCiphertext& shorter = a.parts >= b.parts ? b : a;
  const std::size_t common = shorter.parts, total = longer.parts;
  const int level = a.level;
  const double scale = longer.scale;
  if (&out != &longer && total > common) {
    // The extra part of the longer operand is copied as is.
    FHE_CUDA_CHECK(cudaMemcpyAsync(out.data() + common * longer.part_words(), longer.part(common),
                                   (total - common) * longer.part_words() * 8, cudaMemcpyDeviceToDevice,
                                   stream()));
  }
  out.parts = total;
  out.level = level;
  out.scale = scale;
  cuda::launch_elementwise(cuda::Elementwise::add, longer.data(), shorter.data(), out.data(),
                           {static_cast<std::size_t>(level), longer.rows(), common, log_n_}, common,
                           moduli_.data(), stream());
}

void CudaEvaluator::sub(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 2, "sub");
  check_operand(b, 2, 2, "sub");
  cuda::check_binary(a, b, "sub", engine_, cuda::Combination::sum);
  check_output(out, "sub", 2, a.level);
  // a - b = a + (-b) word for word (sub_mod(x, y) == add_mod(x, neg_mod(y))).
  elementwise(cuda::Elementwise::sub, a, b.data(), 2, a.scale, out);
}

void CudaEvaluator::negate(const CudaCiphertext& a, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "negate");
  check_output(out, "negate", a.parts, a.level);
  elementwise(cuda::Elementwise::negate, a, nullptr, 0, a.scale, out);
}

void CudaEvaluator::multiply_plain(const CudaCiphertext& a, const CudaCiphertext& plain, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "multiply_plain");
  check_operand(plain, 1, 1, "multiply_plain");
  cuda::check_binary(a, plain, "multiply_plain", engine_, cuda::Combination::product);
  check_output(out, "multiply_plain", a.parts, a.level);
  // Part 1's threads would read plaintext words that part 0's had replaced.
  if (&out == &plain) throw InvalidArgument("multiply_plain: the output must not alias the plaintext");
  elementwise(cuda::Elementwise::multiply, a, plain.data(), 1, a.scale * plain.scale, out);
}

void CudaEvaluator::elementwise(cuda::Elementwise op, const CudaCiphertext& a, const std::uint64_t* b,
                                std::size_t b_parts, double scale, CudaCiphertext& out) const {
  const std::size_t parts = a.parts;  // out may alias a
  const int level = a.level;
  cuda::launch_elementwise(op, a.data(), b, out.data(), {static_cast<std::size_t>(level), a.rows(), parts, log_n_},
                           b_parts, moduli_.data(), stream());
  out.parts = parts;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::multiply(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 2, "multiply");
  check_operand(b, 2, 2, "multiply");
  cuda::check_binary(a, b, "multiply", engine_, cuda::Combination::product);
  check_output(out, "multiply", 3, a.level);
  const int level = a.level;
  const double scale = a.scale * b.scale;
  cuda::launch_tensor(a.data(), b.data(), out.data(), {static_cast<std::size_t>(level), a.rows(), 3, log_n_},
                      moduli_.data(), q_inverse_.data(), stream());
  out.parts = 3;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::relinearize(const CudaCiphertext& a, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "relinearize");
  check_output(out, "relinearize", 2, a.level);
  if (a.parts == 2) return copy(a, out);
  const int level = a.level;
  const auto first = static_cast<std::size_t>(level);
  const std::size_t rows = a.rows(), ext_rows = rows + p_rows_;
  const std::uint64_t *c0 = a.part(0), *c1 = a.part(1);  // out may alias a
  const auto region = extend(a.part(2), level, true);
  // The key inner product (Q rows of IP_b, of IP_a, then the P rows of
  // both), then its ModDown plus c0 and c1.
  const cuda::LevelConstants& c = level_constants(level);
  std::uint64_t* acc = accumulators_.data();
  std::uint64_t *acc_a = acc + rows * n_, *p_block = acc + 2 * rows * n_;
  const std::uint8_t* key = keys_->relinearization.bytes.data();
  out.parts = 2;
  out.level = level;
  out.scale = a.scale;
  const ModDownPart parts[2] = {{acc, out.part(0), c0, true}, {acc_a, out.part(1), c1, true}};
  if (region) {
    // No table: relinearization's term (c0 and c1 join at the ModDown).
    return fused_key_switch(*region, {key, nullptr, nullptr}, extended_sum_args(a, 2), {acc, acc_a, p_block, false},
                            parts);
  }
  cuda::launch_inner_product(extended_.data(), c.digit_count, key, keys_->switch_key_layout, c.first_digit, acc,
                             acc_a, p_block, first, rows, ext_rows, log_n_, moduli_.data(), stream());
  mod_down_parts(level, parts, p_block);
}

void CudaEvaluator::multiply_relinearize(const CudaCiphertext& a, const CudaCiphertext& b,
                                         CudaCiphertext& out) const {
  multiply(a, b, out);
  relinearize(out, out);
}

void CudaEvaluator::rescale(const CudaCiphertext& a, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "rescale");
  if (&a == &out) throw InvalidArgument("rescale: the output must not alias the input");
  const Preset& preset = engine_.preset();
  check_rescalable(preset, a.level, "rescale", "ciphertext");
  check_output(out, "rescale", a.parts, a.level + 1);
  const cuda::LevelConstants& c = level_constants(a.level);
  const auto first = static_cast<std::size_t>(a.level);
  const std::size_t kept = a.rows() - 1;
  std::uint64_t* dropped = dropped_.data();
  std::uint64_t* conv = converted_.data();
  out.parts = a.parts;
  out.level = a.level + 1;
  out.scale = a.scale / static_cast<double>(preset.q_primes[first]);
  cuda::ScaleDownItem items[cuda::kMaxScaleDownItems];
  for (std::size_t p = 0; p < a.parts; ++p) items[p] = {a.part(p) + n_, conv + p * kept * n_, out.part(p), nullptr};
  // RnsScaleDown::apply step for step: each part's dropped row (id level,
  // its first) to coefficient form, the centred conversion to the kept rows,
  // back to NTT form, the finish.
  inverse_into(a.data(), a.part_words(), dropped, {first, 1}, a.parts, stream());
  // The conversion of one dropped prime is a centred lift, which the kept
  // rows' first forward pass applies as it loads the dropped row: the kept
  // rows are not written untransformed and read back.
  ntt::gpu::CentredLift lift = c.rescale_lift;
  lift.rows = dropped;
  const ntt::RowRange kept_rows{first + 1, kept};
  if (const auto region =
          ntt::forward_batch_before_region(plan_, conv, kept_rows, a.parts, {stream()}, nullptr, &lift, true)) {
    cuda::launch_region_scale_down(*region, c.rescale, items, static_cast<int>(a.parts), stream());
    return;
  }
  cuda::launch_conversion(c.rescale.conversion, dropped, n_, conv, kept * n_, static_cast<int>(a.parts), log_n_,
                          stream());
  finish_scale_down(forward_for_finish(conv, kept_rows, a.parts, stream()), c.rescale, kept_rows, items, a.parts);
}

void CudaEvaluator::drop_level(const CudaCiphertext& a, int target_level, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "drop_level");
  engine_.preset().active_q_rows(target_level);  // validates
  check_output(out, "drop_level", a.parts, target_level);
  if (target_level < a.level) {
    throw InvalidArgument("drop_level: target level " + std::to_string(target_level) +
                          " is below the ciphertext's level " + std::to_string(a.level));
  }
  if (target_level == a.level) return copy(a, out);
  if (&a == &out) throw InvalidArgument("drop_level: the output must not alias the input");
  out.parts = a.parts;
  out.level = target_level;
  out.scale = a.scale;
  // Each part's rows from the target level's first on, one copy a part.
  const std::size_t dropped_words = static_cast<std::size_t>(target_level - a.level) * n_;
  static_assert(cuda::kMaxWordCopies >= 3, "a ciphertext's parts fit one launch");
  cuda::WordCopy copies[cuda::kMaxWordCopies];
  for (std::size_t p = 0; p < a.parts; ++p) copies[p] = {a.part(p) + dropped_words, out.part(p), out.rows() * n_};
  cuda::launch_copy_words(copies, static_cast<int>(a.parts), stream());
}

void CudaEvaluator::decrypt(const CudaCiphertext& a, CudaCiphertext& plain) const {
  const cuda::DeviceGuard on_device(device_);
  check_operand(a, 2, 3, "decrypt");
  check_output(plain, "decrypt", 1, a.level);
  if (&a == &plain) throw InvalidArgument("decrypt: the output must not alias the input");
  plain.parts = 1;
  plain.level = a.level;
  plain.scale = a.scale;
  cuda::launch_decrypt(a.data(), a.parts, keys_->secret.data(), plain.data(), static_cast<std::size_t>(a.level),
                       a.rows(), log_n_, moduli_.data(), stream());
}

Plaintext CudaEvaluator::decrypt(const CudaCiphertext& a) const {
  const cuda::DeviceGuard on_device(device_);
  CudaCiphertext plain = make_ciphertext();
  decrypt(a, plain);
  Ciphertext host = download(plain);
  return Plaintext{std::move(host.parts[0]), host.level, host.scale};
}

}  // namespace fhe
