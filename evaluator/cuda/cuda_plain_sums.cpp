// CudaEvaluator's plaintext-weighted sums (the matvecs' diagonal products)
// and the upload of plaintexts as repeated blocks (CudaBlockPlain).
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "evaluator/block_rows.h"
#include "evaluator/cuda/cuda_evaluator.h"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/operand_checks.h"
#include "fhe/core/error.h"

namespace fhe {

namespace {

// What the plaintext-weighted sums need of a plaintext of either storage.
bool plain_matches(const CudaCiphertext& plain, const CudaCiphertext& first_term) {
  return plain.parts == 1 && plain.level == first_term.level && plain.max_rows() == first_term.max_rows();
}
bool plain_matches(const CudaBlockPlain& plain, const CudaCiphertext& first_term) {
  return plain.level == first_term.level && plain.rows == first_term.rows();
}
const std::uint64_t* plain_words(const CudaCiphertext& plain) { return plain.data(); }
const std::uint64_t* plain_words(const CudaBlockPlain& plain) { return plain.words.data(); }
int plain_block_log(const CudaCiphertext&) { return 0; }
int plain_block_log(const CudaBlockPlain& plain) { return plain.block_log; }

}  // namespace

template <typename Plain>
double CudaEvaluator::check_plain_sum(std::span<const CudaCiphertext* const> terms,
                                     std::span<const Plain* const> plains, const CudaCiphertext& out,
                                     const char* op) const {
  if (terms.empty() || terms.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(terms.size()) + " terms and " +
                          std::to_string(plains.size()) + " plaintexts (one per term, at least one)");
  }
  const CudaCiphertext& first = *terms.front();
  const double scale = first.scale * plains.front()->scale;
  constexpr bool blocks = std::is_same_v<Plain, CudaBlockPlain>;
  const bool extended = first.max_rows() == qp_rows_;
  // Each buffer of its kind's shape, holding its parts (the rest below: one kind, level and scale).
  const auto check_buffer = [&](const CudaCiphertext& x, std::size_t parts) {
    cuda::check_parts(x, parts, parts, op, engine_);
    if (extended) {
      check_extended(x, op, parts);
    } else {
      check_operand(x, parts, parts, op);
    }
  };
  for (std::size_t t = 0; t < terms.size(); ++t) {
    check_buffer(*terms[t], 2);
    if constexpr (!blocks) check_buffer(*plains[t], 1);
    if (terms[t]->parts != 2 || terms[t]->level != first.level || terms[t]->max_rows() != first.max_rows() ||
        !plain_matches(*plains[t], first) || (blocks && first.max_rows() != qp_rows_) ||
        std::fabs(terms[t]->scale * plains[t]->scale - scale) > 1e-9 * scale) {
      throw InvalidArgument(std::string(op) + ": 2-part terms and 1-part plaintexts of one kind, level and "
                            "product scale (" + cuda::where(engine_, op, first.level) + ")");
    }
  }
  if (extended) {
    check_extended(out, op, 2);
  } else {
    check_output(out, op, 2, first.level);
  }
  return scale;
}

void CudaEvaluator::multiply_plain_sum(const std::vector<const CudaCiphertext*>& terms,
                                       const std::vector<const CudaCiphertext*>& plains, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(device_);
  plain_sums(terms, std::span<const std::vector<const CudaCiphertext*>>(&plains, 1),
             std::span<CudaCiphertext>(&out, 1), "multiply_plain_sum");
}

void CudaEvaluator::multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                                        std::span<const std::vector<const CudaCiphertext*>> plains,
                                        std::span<CudaCiphertext> outs) const {
  const cuda::DeviceGuard on_device(device_);
  plain_sums(terms, plains, outs, "multiply_plain_sums");
}

void CudaEvaluator::multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                                        std::span<const std::vector<const CudaBlockPlain*>> plains,
                                        std::span<CudaCiphertext> outs) const {
  const cuda::DeviceGuard on_device(device_);
  plain_sums(terms, plains, outs, "multiply_plain_sums");
}

CudaBlockPlain CudaEvaluator::upload_blocks(const Plaintext& host) const {
  const cuda::DeviceGuard on_device(device_);
  cuda::StagedUploader staging;
  CudaBlockPlain device = upload_blocks(host, staging);
  staging.finish();
  return device;
}

CudaBlockPlain CudaEvaluator::upload_blocks(const Plaintext& host, cuda::StagedUploader& staging) const {
  const ntt::RowRange rows = schedules_.at(host.level).extended_rows;
  if (host.poly.first_row() != rows.first || host.poly.row_count() != rows.count || !host.poly.ntt_form()) {
    throw InvalidArgument("upload_blocks: an encode_extended plaintext was expected (" +
                          cuda::where(engine_, "upload_blocks", host.level) + ")");
  }
  const std::span<const std::uint64_t> words(host.poly.data(), rows.count * n_);
  CudaBlockPlain device;
  device.rows = rows.count;
  device.block_log = constant_block_log(words, n_);
  device.level = host.level;
  device.scale = host.scale;
  const std::size_t block_count = words.size() >> device.block_log;
  const cuda::DeviceGuard on_device(device_);  // allocates, as make_extended does
  device.words = cuda::DeviceBuffer<std::uint64_t>(block_count, "block plaintext");
  staging.upload(device.words.data(), block_count * 8,
                 [&](std::span<std::uint8_t> bytes) { block_words(words, device.block_log, bytes); });
  return device;
}

template <typename Plain>
void CudaEvaluator::plain_sums(std::span<const CudaCiphertext* const> terms,
                               std::span<const std::vector<const Plain*>> plains, std::span<CudaCiphertext> outs,
                               const char* op) const {
  if (outs.empty() || outs.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs and " +
                          std::to_string(plains.size()) + " plaintext lists (one per output, at least one)");
  }
  // Every output checked before any changes; a later launch still reads
  // the operands, so no output may be one of them (any output's plaintext).
  std::vector<double> scales;
  for (std::size_t j = 0; j < outs.size(); ++j) {
    scales.push_back(check_plain_sum<Plain>(terms, plains[j], outs[j], op));
  }
  auto is_output = [&](const void* x) {
    return std::any_of(outs.begin(), outs.end(), [x](const CudaCiphertext& out) { return &out == x; });
  };
  bool aliased = std::any_of(terms.begin(), terms.end(), is_output);
  for (const auto& list : plains) aliased = aliased || std::any_of(list.begin(), list.end(), is_output);
  if (aliased) throw InvalidArgument(std::string(op) + ": an output aliases a term or plaintext");
  const int level = terms.front()->level;
  const std::size_t rows = terms.front()->rows();
  for (std::size_t j = 0; j < outs.size(); ++j) {
    outs[j].parts = 2;
    outs[j].level = level;
    outs[j].scale = scales[j];
  }
  // Outputs in groups of kMaxProductOutputs, each ONE pass over the terms in
  // launches of kMaxProductTerms (the first writes, the rest accumulate).
  for (std::size_t first_out = 0; first_out < outs.size(); first_out += cuda::kMaxProductOutputs) {
    const std::size_t out_count = std::min<std::size_t>(cuda::kMaxProductOutputs, outs.size() - first_out);
    for (std::size_t first_term = 0; first_term < terms.size(); first_term += cuda::kMaxProductTerms) {
      const std::size_t term_count = std::min<std::size_t>(cuda::kMaxProductTerms, terms.size() - first_term);
      cuda::ProductSums sums;
      sums.term_count = static_cast<int>(term_count);
      sums.output_count = static_cast<int>(out_count);
      for (std::size_t t = 0; t < term_count; ++t) sums.terms[t] = terms[first_term + t]->data();
      for (std::size_t j = 0; j < out_count; ++j) {
        sums.outs[j] = outs[first_out + j].data();
        for (std::size_t t = 0; t < term_count; ++t) {
          const Plain& plain = *plains[first_out + j][first_term + t];
          sums.plains[j][t] = plain_words(plain);
          sums.plain_block_logs[j][t] = static_cast<std::uint8_t>(plain_block_log(plain));
        }
      }
      cuda::launch_products_sums(sums, first_term > 0, static_cast<std::size_t>(level), rows, log_n_,
                                 moduli_.data(), stream());
    }
  }
}

}  // namespace fhe
