// Launchers of the CUDA evaluator's kernels. Each only enqueues on `stream`
// (no allocation, no synchronisation), so any sequence is graph-capturable.
// Polynomials are rows x n words, row-major; `first_row` is the preset row id
// of row 0 and `moduli` the device table of all QP moduli by row id.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/device_conversion.h"
#include "evaluator/switch_key_layout.h"

namespace fhe::cuda {

using DeviceModulus = Modulus<std::uint64_t>;

struct PolyShape {
  std::size_t first_row = 0;  // preset row id of row 0
  std::size_t rows = 0;       // rows per part
  std::size_t parts = 1;
  int log_n = 0;
};

enum class Elementwise { add, sub, negate, multiply };

// out = a op b over parts x rows x n words (b ignored for negate; for
// multiply, b has ONE part that multiplies every part of a).
void launch_elementwise(Elementwise op, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out,
                        PolyShape shape, std::size_t b_parts, const DeviceModulus* moduli, cudaStream_t stream);

// (a0, a1) x (b0, b1) -> (a0 b0, a0 b1 + a1 b0, a1 b1); out parts at stride rows * n.
// q_inverse: fl(1 / q) by row id, as moduli (the rows below 2^42 use it).
void launch_tensor(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, PolyShape shape,
                   const DeviceModulus* moduli, const double* q_inverse, cudaStream_t stream);

// Centered fast basis conversion of `items` inputs in one launch: item i uses
// conversions[i * conversion_stride] (device array), reads its source rows at
// source + i * source_stride + source_offset_rows * n and writes its targets
// into destination + i * destination_stride.
// max_targets bounds every item's target count (the grid covers that many),
// max_sources every item's source count (few sources take a kernel of
// fewer registers). Sized for many items (the ModUp's digits).
// sources_scratch: no one reads the source rows again (the ModUp's inverse
// in a workspace), so a launch of one target slice, which reads each
// source word once, drops their lines from L2 instead of writing them back.
void launch_conversion(const DeviceConversion* conversions, std::size_t conversion_stride,
                       const std::uint64_t* source, std::size_t source_stride, std::uint64_t* destination,
                       std::size_t destination_stride, int items, int max_targets, int max_sources, int log_n,
                       cudaStream_t stream, bool sources_scratch = false);
// The same with one conversion passed by value, sized for few items
// (ModDown, rescale).
void launch_conversion(const DeviceConversion& conversion, const std::uint64_t* source,
                       std::size_t source_stride, std::uint64_t* destination,
                       std::size_t destination_stride, int items, int log_n, cudaStream_t stream);

// The ModUp's own rows: row r of `input` (q_rows x n, NTT form) to extended
// row r of the digit that owns it (own_row_starts: device, LevelConstants),
// in a decomposition of digits x ext_rows x n.
void launch_copy_own_rows(const std::uint64_t* input, std::uint64_t* extended, const std::uint32_t* own_row_starts,
                          int digits, std::size_t q_rows, std::size_t ext_rows, int log_n, cudaStream_t stream);

// Key inner product over the extended rows [first_row, first_row + rows):
// IP_b/a[r][k] = sum_d ext[d][r][k] * key[first_digit + d][b/a][first_row + r][k],
// exact in 128 bits, one reduction. `key`: its digits' (b, a) in `layout`.
// The first q_rows rows go to acc_b/acc_a, the P rows to p_block: IP_b's,
// then IP_a's, back to back (one batched ModDown transform).
void launch_inner_product(const std::uint64_t* extended, int digits, const std::uint8_t* key,
                          const SwitchKeyLayout& layout, int first_digit,
                          std::uint64_t* acc_b, std::uint64_t* acc_a, std::uint64_t* p_block,
                          std::size_t first_row, std::size_t q_rows, std::size_t rows, int log_n,
                          const DeviceModulus* moduli, cudaStream_t stream);

// Terms of an extended sum (CudaEvaluator::accumulate_rotations): over the
// extended rows of a level, sum_b/sum_a (+)= sum_t plain_t (.) term_t with
//   term_t = (IP_b + P c0[table_t[k]], IP_a)  for a rotation (key_t set),
//   term_t = (P c0, P c1)                     for step 0 (key_t null),
// IP the key inner product of the extended digits permuted by table_t, and
// the P x (Q-row) parts zero on the P rows. Exact modular arithmetic, so the
// words equal the CPU's whatever the grouping of terms into launches.
struct RotationTerm {
  const std::uint8_t* key = nullptr;          // in ExtendedSumArgs::key_layout, or null
  const std::uint32_t* table = nullptr;       // the key's NTT-domain permutation
  const std::uint64_t* plain = nullptr;       // extended plaintext, rows x n; null: times 1
  int plain_block_log = 0;                    // word i of the plaintext is plain[i >> plain_block_log]
};
inline constexpr int kMaxRotationTerms = 16;  // terms per launch (kernel parameter space)
struct ExtendedSumArgs {
  const std::uint64_t* extended = nullptr;  // digits x rows x n (the hoisted decomposition)
  int digits = 0, first_digit = 0;
  SwitchKeyLayout key_layout;               // of every key of the terms
  const std::uint64_t* c0 = nullptr;        // the input's parts over the Q rows
  const std::uint64_t* c1 = nullptr;
  // The part the ModUp decomposed (NTT form, q_rows x n), for the fused
  // region + key product: each digit's own rows are that part's rows, which
  // the ModUp's passes skipped (ForwardRegion's skip_starts).
  const std::uint64_t* decomposed = nullptr;
  const std::uint64_t* p_mod_q = nullptr;   // [P]_(q) and Shoup companions by row id
  const std::uint64_t* p_mod_q_shoup = nullptr;
  std::uint64_t* sum_b = nullptr;           // rows x n each
  std::uint64_t* sum_a = nullptr;
  bool accumulate = false;                  // false: the sum starts at these terms
  std::size_t first_row = 0, q_rows = 0, rows = 0;  // rows = q_rows + P rows
  int log_n = 0;
  const DeviceModulus* moduli = nullptr;
};
void launch_rotation_terms(const RotationTerm* terms, int count, const ExtendedSumArgs& args,
                           cudaStream_t stream);
// The same terms (1 <= count <= kMaxRotationTerms), each into its own
// extended output instead of a sum: rows x n each into outs_b[t] and
// outs_a[t], or, when outs_p is set, only the Q rows there and the P rows to
// outs_p[t] (b's, then a's: one batched ModDown transform). args.sum_* and
// args.accumulate are unused.
void launch_rotation_outputs(const RotationTerm* terms, int count, std::uint64_t* const* outs_b,
                             std::uint64_t* const* outs_a, std::uint64_t* const* outs_p,
                             const ExtendedSumArgs& args, cudaStream_t stream);

// Several sums of the same rotation terms (CudaEvaluator::accumulate_rotations
// with a list of sums): sum_j (+)= sum_t plain_(j,t) (.) term_t for every
// sum j, each term (a RotationTerm, its own plain unused) formed once for
// all the sums, so its key streams once. A lazy BSGS's inner sums come so
// straight from its baby steps, which are never stored. Exact in 128 bits
// (32 products of words below 2^61 and a carried word), one reduction a
// sum and launch.
inline constexpr int kMaxRotationSumTerms = 32;  // terms per launch
inline constexpr int kMaxRotationSums = 5;       // sums per launch (a thread's 128-bit sums in shared memory)
struct RotationSums {
  RotationTerm terms[kMaxRotationSumTerms];
  // [sum][term]: word i of a plaintext is plains[j][t][i >> plain_block_logs[j][t]]; null: times 1.
  const std::uint64_t* plains[kMaxRotationSums][kMaxRotationSumTerms] = {};
  std::uint8_t plain_block_logs[kMaxRotationSums][kMaxRotationSumTerms] = {};
  std::uint64_t* sums_b[kMaxRotationSums] = {};  // rows x n each, as ExtendedSumArgs::sum_b
  std::uint64_t* sums_a[kMaxRotationSums] = {};
  bool accumulate[kMaxRotationSums] = {};        // false: the sum starts at these terms
  int term_count = 0, sum_count = 0;
};
void launch_rotation_sums(const RotationSums& sums, const ExtendedSumArgs& args, cudaStream_t stream);

// out_j (+)= sum_t term_t (.) plain_(j,t) for every output j, over `rows`
// rows (ids first_row..) of 2-part terms and outputs (part stride rows x n)
// and 1-part plaintexts: BSGS's inner sums of stored extended baby steps,
// several giant steps per pass so each term is read once for all of them.
// Passed by value (kernel parameter space), hence the bounds.
inline constexpr int kMaxProductTerms = 32;   // terms per launch: the lazy BSGS's 32 baby steps in one
inline constexpr int kMaxProductOutputs = 8;  // outputs per launch
struct ProductSums {
  const std::uint64_t* terms[kMaxProductTerms] = {};
  // [output][term]: word i of a plaintext is plains[j][t][i >> plain_block_logs[j][t]]
  // (evaluator/block_rows.h; 0: every word stored).
  const std::uint64_t* plains[kMaxProductOutputs][kMaxProductTerms] = {};
  std::uint8_t plain_block_logs[kMaxProductOutputs][kMaxProductTerms] = {};
  std::uint64_t* outs[kMaxProductOutputs] = {};
  int term_count = 0, output_count = 0;
};
void launch_products_sums(const ProductSums& sums, bool accumulate, std::size_t first_row, std::size_t rows,
                          int log_n, const DeviceModulus* moduli, cudaStream_t stream);

// Final step of RnsScaleDown for `items` polynomials:
// out_i[r][k] = (x_i[r][k] - conv_i[r][k]) * [D^-1] (+ addend_i[r][k] when
// addend_i is set).
struct ScaleDownItem {
  const std::uint64_t* x = nullptr;
  const std::uint64_t* converted = nullptr;
  std::uint64_t* out = nullptr;
  const std::uint64_t* addend = nullptr;
  // x is a workspace read here for the last time (a key switch's inner
  // product): the fused region finish drops its lines from L2 after reading.
  bool x_scratch = false;
};
inline constexpr int kMaxScaleDownItems = 8;  // a rescale's 3 parts, 4 rotations' 8
void launch_scale_down_finish(const DeviceScaleDown& scale_down, const ScaleDownItem* items, int item_count,
                              std::size_t first_kept_row, int log_n, const DeviceModulus* moduli,
                              cudaStream_t stream);

// out = c0 + c1 s (+ c2 s^2) over rows; s over all QP rows (key row ids).
void launch_decrypt(const std::uint64_t* ct, std::size_t parts, const std::uint64_t* secret,
                    std::uint64_t* out, std::size_t first_row, std::size_t rows, int log_n,
                    const DeviceModulus* moduli, cudaStream_t stream);

// Device-to-device copies in one launch that overlaps its neighbours like
// the passes: a memcpy between two kernels lets neither start early, so the
// GPU idles before and after it (the lazy BSGS's ModDown sources: 22 us of
// idle on an H100, 1 us with this; docs/performance.md, sessions 69 and
// 75); drop_level copies its parts' kept rows with it too. Copy i moves
// words[i] words from source[i] to destination[i]; the ranges must not
// overlap.
struct WordCopy {
  const std::uint64_t* source = nullptr;
  std::uint64_t* destination = nullptr;
  std::size_t words = 0;
};
inline constexpr int kMaxWordCopies = kMaxScaleDownItems;  // a batched ModDown's P rows
void launch_copy_words(const WordCopy* copies, int count, cudaStream_t stream);

}  // namespace fhe::cuda
