// CudaEvaluator's rotations: Galois automorphisms with their key switches
// (rotate, conjugate, rotate_many_by_steps: one ModUp, several steps a
// launch), and sums of rotations brought down by one ModDown.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "evaluator/cuda/cuda_evaluator.h"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/operand_checks.h"
#include "evaluator/cuda/region_key_product.h"
#include "evaluator/cuda_workspace.h"
#include "fhe/ckks/galois.h"
#include "fhe/core/error.h"

namespace fhe {

namespace {

// The kernel term list of keys[start, start + batch) (null: step 0) times
// plains (empty, or null entries: times 1).
void fill_terms(const std::vector<const cuda::DeviceSwitchKey*>& keys,
                const std::vector<const CudaBlockPlain*>& plains, std::size_t start, std::size_t batch,
                cuda::RotationTerm* terms) {
  for (std::size_t t = 0; t < batch; ++t) {
    const cuda::DeviceSwitchKey* key = keys[start + t];
    const CudaBlockPlain* plain = plains.empty() ? nullptr : plains[start + t];
    terms[t] = {key ? key->bytes.data() : nullptr, key ? key->galois_table.data() : nullptr,
                plain ? plain->words.data() : nullptr, plain ? plain->block_log : 0};
  }
}

}  // namespace

void CudaEvaluator::apply_galois(const CudaCiphertext& a, const std::vector<std::uint64_t>& elements,
                                 std::span<CudaCiphertext> outs, const char* op) const {
  check_operand(a, 2, 2, op);
  if (outs.size() != elements.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs for " +
                          std::to_string(elements.size()) + " steps");
  }
  for (const CudaCiphertext& out : outs) {
    check_output(out, op, 2, a.level);
    if (&out == &a) throw InvalidArgument(std::string(op) + ": an output aliases the input");
  }
  const PreparedRotations prepared = prepare_rotations(a, elements, RegionFusion::single_or_hoisted);
  const std::vector<const cuda::DeviceSwitchKey*>& keys = prepared.keys;
  std::vector<const cuda::DeviceSwitchKey*> switched_keys;
  std::vector<CudaCiphertext*> switched_outs;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!keys[i]) {
      copy(a, outs[i]);
      continue;
    }
    switched_keys.push_back(keys[i]);
    switched_outs.push_back(&outs[i]);
  }
  // Up to kHoistedRotationsPerLaunch rotations per key-term launch, which
  // reads the digits once for all of them: each rotation's
  // (IP_b + P c0 permuted, IP_a) over QP into the rotations workspace, the
  // P rows of all of them first (back to back), then their Q rows. Then one
  // ModDown for all of them.
  const std::size_t rows = a.rows(), p_words = 2 * p_rows_ * n_;
  for (std::size_t start = 0; start < switched_keys.size(); start += kHoistedRotationsPerLaunch) {
    const std::size_t batch = std::min(kHoistedRotationsPerLaunch, switched_keys.size() - start);
    std::uint64_t *outs_b[kHoistedRotationsPerLaunch], *outs_a[kHoistedRotationsPerLaunch],
        *outs_p[kHoistedRotationsPerLaunch];
    ModDownPart parts[2 * kHoistedRotationsPerLaunch];
    std::uint64_t* q_block = rotations_.data() + batch * p_words;
    for (std::size_t t = 0; t < batch; ++t) {
      outs_p[t] = rotations_.data() + t * p_words;
      outs_b[t] = q_block + 2 * t * rows * n_;
      outs_a[t] = outs_b[t] + rows * n_;
      CudaCiphertext& out = *switched_outs[start + t];
      out.parts = 2;
      out.level = a.level;
      out.scale = a.scale;
      parts[2 * t] = {outs_b[t], out.part(0), nullptr, true};
      parts[2 * t + 1] = {outs_a[t], out.part(1), nullptr, true};
    }
    const std::span<const ModDownPart> to_bring_down(parts, 2 * batch);
    if (prepared.region && batch == 1) {  // the one rotation, fused with the ModUp's last pass
      cuda::RotationTerm term;
      fill_terms(switched_keys, {}, start, 1, &term);
      fused_key_switch(*prepared.region, term, extended_sum_args(a), {outs_b[0], outs_a[0], outs_p[0], false},
                       to_bring_down);
      continue;
    }
    if (prepared.region) {  // every rotation by a key (RegionFusion::single_or_hoisted) from the region
      static_assert(cuda::kMaxFusedTerms <= kHoistedRotationsPerLaunch, "the fused rotations fit one batch");
      cuda::RotationTerm terms[cuda::kMaxFusedTerms];
      cuda::TermOutput term_outs[cuda::kMaxFusedTerms];
      fill_terms(switched_keys, {}, start, batch, terms);
      for (std::size_t t = 0; t < batch; ++t) term_outs[t] = {outs_b[t], outs_a[t], outs_p[t], false};
      cuda::launch_region_key_products(*prepared.region, std::span(terms, batch),
                                       std::span(elements).subspan(start, batch), extended_sum_args(a),
                                       std::span(term_outs, batch), stream());
      mod_down_parts(a.level, to_bring_down, rotations_.data());
      continue;
    }
    launch_rotations(a, switched_keys, start, batch, outs_b, outs_a, outs_p);
    mod_down_parts(a.level, to_bring_down, rotations_.data());
  }
}

void CudaEvaluator::rotate(const CudaCiphertext& a, int step, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  apply_galois(a, {engine_.galois_element_for_step(step)}, std::span<CudaCiphertext>(&out, 1), "rotate");
}

void CudaEvaluator::conjugate(const CudaCiphertext& a, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  apply_galois(a, {conjugation_galois_element(log_n_)}, std::span<CudaCiphertext>(&out, 1), "conjugate");
}

void CudaEvaluator::rotate_many_by_steps(const CudaCiphertext& a, const std::vector<int>& steps,
                                         std::span<CudaCiphertext> outs) const {
  const cuda::DeviceGuard on_device(device_);
  apply_galois(a, engine_.galois_elements_for_steps(steps), outs, "rotate_many_by_steps");
}

// ---- sums of rotations with one ModDown ------------------------------------

CudaEvaluator::PreparedRotations CudaEvaluator::prepare_rotations(const CudaCiphertext& a,
                                                                 const std::vector<std::uint64_t>& elements,
                                                                 RegionFusion fusion) const {
  PreparedRotations prepared;
  bool any_switch = false, all_switch = true;
  for (std::uint64_t element : elements) {
    prepared.keys.push_back(element == 1 ? nullptr : &galois_key(element));
    any_switch = any_switch || prepared.keys.back();
    all_switch = all_switch && prepared.keys.back();
  }
  const bool single = fusion != RegionFusion::none && elements.size() == 1;
  const bool hoisted = fusion == RegionFusion::single_or_hoisted && all_switch && elements.size() >= 2 &&
                       elements.size() <= static_cast<std::size_t>(cuda::kMaxFusedTerms);
  if (any_switch) prepared.region = extend(a.part(1), a.level, single || hoisted);
  return prepared;
}

cuda::ExtendedSumArgs CudaEvaluator::extended_sum_args(const CudaCiphertext& a, std::size_t decomposed_part) const {
  return extended_sum_args(a.level, a.part(0), a.part(1), a.part(decomposed_part));
}

cuda::ExtendedSumArgs CudaEvaluator::extended_sum_args(int level, const std::uint64_t* c0, const std::uint64_t* c1,
                                                       const std::uint64_t* decomposed) const {
  const cuda::LevelConstants& c = level_constants(level);
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  cuda::ExtendedSumArgs args;
  args.extended = extended_.data();
  args.digits = c.digit_count;
  args.first_digit = c.first_digit;
  args.key_layout = keys_->switch_key_layout;
  args.c0 = c0;
  args.c1 = c1;
  args.decomposed = decomposed;
  args.p_mod_q = p_mod_q_.data();
  args.p_mod_q_shoup = p_mod_q_shoup_.data();
  args.first_row = static_cast<std::size_t>(level);
  args.q_rows = rows;
  args.rows = rows + p_rows_;
  args.log_n = log_n_;
  args.moduli = moduli_.data();
  return args;
}

void CudaEvaluator::add_terms(const PreparedRotations& prepared, const cuda::ExtendedSumArgs& args,
                              const std::vector<const CudaBlockPlain*>& plains, bool accumulate,
                              CudaCiphertext& sum) const {
  if (prepared.region) {  // one rotation (a BSGS giant step), fused with the ModUp's last pass
    cuda::RotationTerm term;
    fill_terms(prepared.keys, plains, 0, 1, &term);
    cuda::launch_region_key_product(*prepared.region, term, args, {sum.part(0), sum.part(1), nullptr, accumulate},
                                    stream());
  } else {
    launch_terms(args, prepared.keys, plains, accumulate, sum);
  }
}

// Every term of `keys` x `plains` into `sum` (already shaped: 2 parts at
// the input's level), in launches of kMaxRotationTerms.
void CudaEvaluator::launch_terms(cuda::ExtendedSumArgs args, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                                 const std::vector<const CudaBlockPlain*>& plains, bool accumulate,
                                 CudaCiphertext& sum) const {
  args.sum_b = sum.part(0);
  args.sum_a = sum.part(1);
  args.accumulate = accumulate;
  for (std::size_t start = 0; start < keys.size(); start += cuda::kMaxRotationTerms) {
    const std::size_t batch = std::min<std::size_t>(cuda::kMaxRotationTerms, keys.size() - start);
    cuda::RotationTerm terms[cuda::kMaxRotationTerms];
    fill_terms(keys, plains, start, batch, terms);
    cuda::launch_rotation_terms(terms, static_cast<int>(batch), args, stream());
    args.accumulate = true;
  }
}

double CudaEvaluator::check_rotation_sum(const CudaCiphertext& a, const std::vector<int>& steps,
                                         const std::vector<const CudaBlockPlain*>& plains,
                                         const CudaCiphertext& sum, const char* op) const {
  check_extended(sum, op, 2);
  if (steps.empty() || steps.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(steps.size()) + " steps and " +
                          std::to_string(plains.size()) + " plaintexts (one per step, at least one)");
  }
  const int level = a.level;
  auto plain_scale = [](const CudaBlockPlain* plain) { return plain ? plain->scale : 1.0; };
  const double scale = a.scale * plain_scale(plains.front());
  for (const CudaBlockPlain* plain : plains) {
    if ((plain && (plain->level != level || plain->rows != a.rows() + p_rows_)) ||
        std::fabs(a.scale * plain_scale(plain) - scale) > 1e-9 * scale) {
      throw InvalidArgument(std::string(op) + ": plaintexts must be uploaded encode_extended plaintexts of one "
                            "scale at " + cuda::where(engine_, op, level));
    }
  }
  if (sum.parts != 0 && (sum.parts != 2 || sum.level != level || std::fabs(sum.scale - scale) > 1e-9 * scale)) {
    throw InvalidArgument(std::string(op) + ": the sum is not an extended sum of this level and scale (" +
                          cuda::where(engine_, op, level) + ")");
  }
  return scale;
}

void CudaEvaluator::accumulate_rotations(const CudaCiphertext& a, const std::vector<int>& steps,
                                         const std::vector<const CudaBlockPlain*>& extended_plains,
                                         CudaCiphertext& sum) const {
  const cuda::DeviceGuard on_device(device_);
  const char* op = "accumulate_rotations";
  check_operand(a, 2, 2, op);
  const double scale = check_rotation_sum(a, steps, extended_plains, sum, op);
  const PreparedRotations prepared =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), RegionFusion::single);
  const bool accumulate = sum.parts != 0;
  sum.parts = 2;
  sum.level = a.level;
  sum.scale = scale;
  add_terms(prepared, extended_sum_args(a), extended_plains, accumulate, sum);
}

void CudaEvaluator::accumulate_rotations(const CudaCiphertext& a, const std::vector<int>& steps,
                                         std::span<const std::vector<const CudaBlockPlain*>> plains,
                                         std::span<CudaCiphertext> sums) const {
  const cuda::DeviceGuard on_device(device_);
  const char* op = "accumulate_rotations";
  check_operand(a, 2, 2, op);
  if (sums.empty() || sums.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(sums.size()) + " sums and " +
                          std::to_string(plains.size()) + " plaintext lists (one per sum, at least one)");
  }
  if (sums.size() == 1) return accumulate_rotations(a, steps, plains[0], sums[0]);  // its fused one-step path
  // Every sum checked before any changes.
  std::vector<double> scales;
  for (std::size_t j = 0; j < sums.size(); ++j) scales.push_back(check_rotation_sum(a, steps, plains[j], sums[j], op));
  const PreparedRotations prepared =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), RegionFusion::none);
  cuda::ExtendedSumArgs args = extended_sum_args(a);
  for (std::size_t first_sum = 0; first_sum < sums.size(); first_sum += cuda::kMaxRotationSums) {
    const std::size_t sum_count = std::min<std::size_t>(cuda::kMaxRotationSums, sums.size() - first_sum);
    cuda::RotationSums list;
    list.sum_count = static_cast<int>(sum_count);
    for (std::size_t j = 0; j < sum_count; ++j) {
      CudaCiphertext& sum = sums[first_sum + j];
      list.accumulate[j] = sum.parts != 0;
      sum.parts = 2;
      sum.level = a.level;
      sum.scale = scales[first_sum + j];
      list.sums_b[j] = sum.part(0);
      list.sums_a[j] = sum.part(1);
    }
    for (std::size_t start = 0; start < steps.size(); start += cuda::kMaxRotationSumTerms) {
      const std::size_t batch = std::min<std::size_t>(cuda::kMaxRotationSumTerms, steps.size() - start);
      list.term_count = static_cast<int>(batch);
      fill_terms(prepared.keys, {}, start, batch, list.terms);
      for (std::size_t j = 0; j < sum_count; ++j) {
        for (std::size_t t = 0; t < batch; ++t) {
          const CudaBlockPlain* plain = plains[first_sum + j][start + t];
          list.plains[j][t] = plain ? plain->words.data() : nullptr;
          list.plain_block_logs[j][t] = static_cast<std::uint8_t>(plain ? plain->block_log : 0);
        }
      }
      cuda::launch_rotation_sums(list, args, stream());
      std::fill_n(list.accumulate, sum_count, true);
    }
  }
}

void CudaEvaluator::accumulate_extended_rotation(const CudaCiphertext& extended, int step, CudaCiphertext& sum) const {
  const cuda::DeviceGuard on_device(device_);
  const CudaCiphertext* const one[] = {&extended};
  accumulate_extended_rotations(one, {step}, sum);
}

void CudaEvaluator::accumulate_extended_rotations(std::span<const CudaCiphertext* const> extendeds,
                                                  const std::vector<int>& steps, CudaCiphertext& sum) const {
  const cuda::DeviceGuard on_device(device_);
  const char* op = "accumulate_extended_rotations";
  if (extendeds.empty() || extendeds.size() != steps.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(extendeds.size()) + " extended sums for " +
                          std::to_string(steps.size()) + " steps (one each, at least one)");
  }
  check_extended(sum, op, 2);
  for (const CudaCiphertext* extended : extendeds) {
    if (!extended || extended == &sum) {
      // The term's kernel reads extended.c0 at permuted positions while it writes the sum.
      throw InvalidArgument(std::string(op) + ": an extended sum is null or the sum itself");
    }
    check_extended(*extended, op, 2);
    cuda::check_parts(*extended, 2, 2, op, engine_);
  }
  const int level = extendeds.front()->level;
  const double scale = extendeds.front()->scale;
  for (const CudaCiphertext* extended : extendeds) {
    if (extended->parts != 2 || extended->level != level || std::fabs(extended->scale - scale) > 1e-9 * scale) {
      throw InvalidArgument(std::string(op) + ": 2-part extended sums of one level and scale were expected");
    }
  }
  if (sum.parts != 0 && (sum.parts != 2 || sum.level != level || std::fabs(sum.scale - scale) > 1e-9 * scale)) {
    throw InvalidArgument(std::string(op) + ": the sum is not an extended sum of this level and scale (" +
                          cuda::where(engine_, op, level) + ")");
  }
  const std::vector<std::uint64_t> elements = engine_.galois_elements_for_steps(steps);
  std::vector<std::size_t> rotated;  // the terms with a key switch
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i] == 1) continue;
    galois_key(elements[i]);  // a missing key fails before any work
    rotated.push_back(i);
  }
  for (std::size_t i = 0; i < elements.size(); ++i) {  // step 0 adds the extended sum itself
    if (elements[i] != 1) continue;
    if (sum.parts == 0) {
      copy(*extendeds[i], sum);
    } else {
      add(sum, *extendeds[i], sum);
    }
  }
  // Batches of c1: their P rows back to back, one ModDown into the
  // rotations workspace (free during these key switches), then one key
  // switch each, with its extended sum's c0 as the term's c0 on every row,
  // times 1 instead of P.
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level), p_words = p_rows_ * n_;
  // A batch: what one scale-down launch takes and the workspaces hold (the
  // P rows' copies in accumulators_, the coefficients in converted_).
  const std::size_t most = std::min({static_cast<std::size_t>(cuda::kMaxScaleDownItems),
                                     accumulators_.size() / p_words, converted_.size() / (rows * n_)});
  for (std::size_t start = 0; start < rotated.size(); start += most) {
    const std::size_t batch = std::min(most, rotated.size() - start);
    ModDownPart parts[cuda::kMaxScaleDownItems];
    cuda::WordCopy p_copies[cuda::kMaxScaleDownItems];
    for (std::size_t t = 0; t < batch; ++t) {
      const CudaCiphertext& extended = *extendeds[rotated[start + t]];
      p_copies[t] = {extended.part(1) + rows * n_, accumulators_.data() + t * p_words, p_words};
      parts[t] = {extended.part(1), rotations_.data() + t * rows * n_, nullptr};
    }
    cuda::launch_copy_words(p_copies, static_cast<int>(batch), stream());
    mod_down_parts(level, std::span<const ModDownPart>(parts, batch), accumulators_.data());
    // Every c1's ModUp inverse in one batched launch (one c1's, 35 rows at
    // level 0, filled a third to a half of the DRAM's rate): from the
    // rotations workspace, where they lie back to back, into the ModDown's
    // conversions, free once its finish has read them.
    std::uint64_t* coefficients = converted_.data();
    inverse_into(rotations_.data(), rows * n_, coefficients, {static_cast<std::size_t>(level), rows}, batch,
                 stream());
    for (std::size_t t = 0; t < batch; ++t) {
      const std::size_t i = rotated[start + t];
      const std::uint64_t* c1 = parts[t].out;
      PreparedRotations prepared;
      prepared.keys.push_back(&galois_key(elements[i]));
      prepared.region = extend_inverted(c1, coefficients + t * rows * n_, level, true);
      cuda::ExtendedSumArgs args = extended_sum_args(level, extendeds[i]->part(0), c1, c1);
      args.q_rows = args.rows;
      args.p_mod_q = one_mod_qp_.data();
      args.p_mod_q_shoup = one_mod_qp_shoup_.data();
      const bool accumulate = sum.parts != 0;
      sum.parts = 2;
      sum.level = level;
      sum.scale = scale;
      add_terms(prepared, args, {nullptr}, accumulate, sum);
    }
  }
}

void CudaEvaluator::rotate_many_extended(const CudaCiphertext& a, const std::vector<int>& steps,
                                         std::span<CudaCiphertext> outs) const {
  const cuda::DeviceGuard on_device(device_);
  const char* op = "rotate_many_extended";
  check_operand(a, 2, 2, op);
  if (outs.size() != steps.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs for " +
                          std::to_string(steps.size()) + " steps");
  }
  for (const CudaCiphertext& out : outs) check_extended(out, op, 2);
  const std::vector<const cuda::DeviceSwitchKey*> keys =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), RegionFusion::none).keys;
  for (std::size_t start = 0; start < steps.size(); start += cuda::kMaxRotationTerms) {
    const std::size_t batch = std::min<std::size_t>(cuda::kMaxRotationTerms, steps.size() - start);
    std::uint64_t* outs_b[cuda::kMaxRotationTerms];
    std::uint64_t* outs_a[cuda::kMaxRotationTerms];
    for (std::size_t t = 0; t < batch; ++t) {
      CudaCiphertext& out = outs[start + t];
      out.parts = 2;
      out.level = a.level;
      out.scale = a.scale;
      outs_b[t] = out.part(0);
      outs_a[t] = out.part(1);
    }
    launch_rotations(a, keys, start, batch, outs_b, outs_a, nullptr);
  }
}

void CudaEvaluator::launch_rotations(const CudaCiphertext& a, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                                     std::size_t start, std::size_t batch, std::uint64_t* const* outs_b,
                                     std::uint64_t* const* outs_a, std::uint64_t* const* outs_p) const {
  cuda::RotationTerm terms[cuda::kMaxRotationTerms];
  fill_terms(keys, {}, start, batch, terms);
  cuda::launch_rotation_outputs(terms, static_cast<int>(batch), outs_b, outs_a, outs_p, extended_sum_args(a),
                                stream());
}

}  // namespace fhe
