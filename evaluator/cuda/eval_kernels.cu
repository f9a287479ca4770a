// Kernels of the CUDA evaluator: the CPU's word arithmetic (fhe/arith/
// modarith.h, FHE_HD) applied per coefficient, so every result is the same
// fully reduced word as on the CPU.
#include "evaluator/cuda/eval_kernels.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "evaluator/cuda/conversion_slice.cuh"
#include "evaluator/cuda/conversion_thread.cuh"
#include "evaluator/cuda/key_terms.cuh"
#include "evaluator/cuda/plain_product_sums.cuh"
#include "evaluator/cuda/rotation_sums.cuh"
#include "evaluator/cuda/tensor_words.cuh"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace fhe::cuda {
namespace {

using namespace terms;

constexpr unsigned kBlock = 256;

unsigned blocks_for(std::size_t count) { return static_cast<unsigned>((count + kBlock - 1) / kBlock); }

__global__ void elementwise_kernel(Elementwise op, const u64* __restrict__ a, const u64* __restrict__ b,
                                   u64* __restrict__ out, std::size_t first_row, std::size_t rows,
                                   std::size_t part_words, std::size_t total, std::size_t b_parts,
                                   int log_n, const DeviceModulus* __restrict__ moduli) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const std::size_t row = (i >> log_n) % rows;
  const DeviceModulus m = moduli[first_row + row];
  const u64 x = a[i];
  switch (op) {
    case Elementwise::add: out[i] = add_mod(x, b[i], m.value); break;
    case Elementwise::sub: out[i] = sub_mod(x, b[i], m.value); break;
    case Elementwise::negate: out[i] = neg_mod(x, m.value); break;
    case Elementwise::multiply: {
      const std::size_t j = b_parts == 1 ? i % part_words : i;
      out[i] = mul_mod(x, b[j], m);
      break;
    }
  }
}

// The key switch's kernels between NTT passes launch like the passes
// (ntt::gpu::launch_overlapped): their blocks may start while the previous
// kernel drains and let the next one start as they finish; they read
// nothing the previous kernel wrote before the wait.
__device__ void overlap_with_neighbours() {
  ntt::gpu::allow_next_kernel_launch();
  ntt::gpu::wait_for_previous_kernel();
}

// Rows of a prime below 2^42 in double precision (tensor_words.cuh); a
// block's words lie in one row where n >= kBlock, so the branch is uniform.
__global__ void tensor_kernel(const u64* __restrict__ a, const u64* __restrict__ b, u64* __restrict__ out,
                              std::size_t first_row, std::size_t part_words, int log_n,
                              const DeviceModulus* __restrict__ moduli, const double* __restrict__ q_inverse) {
  overlap_with_neighbours();
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= part_words) return;
  const std::size_t row = first_row + (i >> log_n);
  const u64 q = moduli[row].value;
  const u64 a0 = a[i], a1 = a[part_words + i], b0 = b[i], b1 = b[part_words + i];
  const TensorWords d = ntt::gpu::fp64_modulus(q) ? tensor_words_fp64(a0, a1, b0, b1, q, q_inverse[row])
                                                  : tensor_words_integer(a0, a1, b0, b1, moduli[row]);
  out[i] = d.d0;
  out[part_words + i] = d.d1;
  out[2 * part_words + i] = d.d2;
}

// Basis conversion (conversion_thread.cuh): a block's slice of targets is
// grid.z. Every slice computes the sources' y_i again, so the ModUp's
// launch (ten digits at level 0, at most 38 targets a digit) takes one
// slice a digit: 40 targets (session 21: level-0 key switch -0.8 % against
// two slices of 20, +1 % with three of 13; 20 was best in session 9,
// before the narrow targets' sums went to double precision); the two items
// of a ModDown or rescale take 12 (three slices of the 35 Q rows at level
// 0: 768 blocks, two rounds of 3 blocks an SM; 8 until session 14, five
// slices and four rounds), so that they still fill the GPU. A compile-time
// slice: with a run-time one the 80-register kernels spilled.
constexpr int kModUpTargetsPerSlice = 40;
constexpr int kScaleDownTargetsPerSlice = 12;

// After a one-slice launch (each source word read by one thread: words k
// and k + N/2 of every source row), the first lane of each run of
// kWordsPerL2Line threads drops the run's line of every source row from L2
// (discard_line_from_l2), once the warp barrier says all its lanes have
// their words.
__device__ void drop_source_lines(const DeviceConversion& c, const u64* source, std::size_t k, int log_n) {
  __syncwarp();
  if (k % ntt::gpu::kWordsPerL2Line != 0) return;
  const std::size_t n = std::size_t{1} << log_n;
  for (int i = 0; i < c.sources; ++i) {
    const u64* row = source + static_cast<std::size_t>(c.source_offset_rows + i) * n;
    ntt::gpu::discard_line_from_l2(row + k);
    ntt::gpu::discard_line_from_l2(row + k + n / 2);
  }
}

template <int TargetsPerSlice, int MaxSources = kMaxConversionSources>
__device__ void convert_block(const DeviceConversion& c, const u64* source, u64* destination, int log_n,
                              bool drop_sources = false) {
  __shared__ alignas(16) u64 words[StagedSlice<TargetsPerSlice, MaxSources>::kWords];
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const int first_target = static_cast<int>(blockIdx.z) * TargetsPerSlice;
  if (first_target >= c.targets) {  // uniform per block
    overlap_with_neighbours();
    return;
  }
  const DeviceConversion slice =
      stage_slice<TargetsPerSlice, MaxSources>(c, first_target, words, threadIdx.x, blockDim.x);
  overlap_with_neighbours();
  __syncthreads();
  if (k >= (std::size_t{1} << log_n) / kConversionCoefficients) return;
  convert_coefficients<TargetsPerSlice, MaxSources>(slice, source, destination, k, log_n, 0);
  if (drop_sources && gridDim.z == 1) drop_source_lines(c, source, k, log_n);
}

// 3 blocks per SM (80 registers) for up to 8 sources, two coefficients a
// thread; a ModUp whose digits have at most kFewSources rows (the default
// preset's: 4) takes an instantiation of its own at 4 blocks (64 registers,
// no spill since session 23's staging; session 21: level-0 key switch
// -1.3 %). One coefficient a thread at 5 blocks, or four at 3, lost in
// sessions 23 and 24, before and after the staging (docs/performance.md).
constexpr int kFewSources = 4;
constexpr int kFewSourceBlocks = 4;

template <int MaxSources, int MinBlocks>
__global__ void __launch_bounds__(kBlock, MinBlocks)
    conversion_array_kernel(const DeviceConversion* __restrict__ conversions, std::size_t conversion_stride,
                            const u64* source, std::size_t source_stride, u64* destination,
                            std::size_t destination_stride, int log_n, bool drop_sources) {
  const std::size_t item = blockIdx.y;
  convert_block<kModUpTargetsPerSlice, MaxSources>(conversions[item * conversion_stride],
                                                   source + item * source_stride,
                                                   destination + item * destination_stride, log_n, drop_sources);
}

__global__ void __launch_bounds__(kBlock, 3)
    conversion_value_kernel(const __grid_constant__ DeviceConversion conversion, const u64* source,
                            std::size_t source_stride, u64* destination, std::size_t destination_stride,
                            int log_n) {
  const std::size_t item = blockIdx.y;
  convert_block<kScaleDownTargetsPerSlice>(conversion, source + item * source_stride,
                                           destination + item * destination_stride, log_n);
}

// Blocks over half the coefficients (two per thread), the items, and the
// targets in slices.
dim3 conversion_grid(int log_n, int items, int max_targets, int targets_per_slice) {
  return dim3(blocks_for((std::size_t{1} << log_n) / kConversionCoefficients), static_cast<unsigned>(items),
              static_cast<unsigned>((max_targets + targets_per_slice - 1) / targets_per_slice));
}

// One thread per (row, k): relinearization's key inner product.
__global__ void inner_product_kernel(const u64* __restrict__ extended, int digits,
                                     const std::uint8_t* __restrict__ key, SwitchKeyLayout layout, int first_digit,
                                     SplitRows out, std::size_t first_row, const DeviceModulus* __restrict__ moduli) {
  const std::size_t n = out.n;
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t r = blockIdx.y;
  if (k >= n) return;
  const DeviceModulus m = moduli[first_row + r];
  const auto digit_word = [&](int d) { return ExtendedDigits<>{extended, out.rows, n, r}(d, k); };
  key_inner_product<1, true>(digit_word, digits, key, layout, first_digit, first_row + r, k, m, out.row_b(r)[k],
                             out.row_a(r)[k]);
}

struct RotationTermList {
  RotationTerm term[kMaxRotationTerms];
};

// One thread per (extended row, k) adds every term of the list: the key
// inner products share the digits' rows through L2 (the blocks resident at
// once cover a few rows), so DRAM mostly streams the keys. Five blocks an
// SM (48 registers, no spill): the narrow rows' products from 24-bit
// halves and the wide rows in rounds of two digits (the kernel's registers
// are its heavier path's); with 128-bit products and rounds of five on
// both, 64 registers and 4 blocks.
__global__ void __launch_bounds__(kBlock, 5)
    rotation_terms_kernel(RotationTermList list, int count, ExtendedSumArgs s) {
  const std::size_t n = std::size_t{1} << s.log_n;
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t r = blockIdx.y;
  if (k >= n) return;
  const TermRow row = term_row(s, r);
  const std::size_t i = r * n + k;
  u64 sum_b = s.accumulate ? s.sum_b[i] : 0, sum_a = s.accumulate ? s.sum_a[i] : 0;
  for (int t = 0; t < count; ++t) {
    u64 b, a;
    rotation_term<5, true, true, 2, NarrowSums::split>(list.term[t], s, row, r, k,
                                                       ExtendedDigits<std::size_t>{s.extended, s.rows, n, r}, b, a);
    sum_b = add_mod(sum_b, b, row.m.value);
    sum_a = add_mod(sum_a, a, row.m.value);
  }
  s.sum_b[i] = sum_b;
  s.sum_a[i] = sum_a;
}

// One thread per (extended row, k), as rotation_terms_kernel, with every
// term multiplied into each of the Sums sums as it is formed
// (rotation_sums.cuh), the 128-bit sums in shared memory (40 KB a block
// for five): four blocks an SM.
template <int Sums>
__global__ void __launch_bounds__(kBlock, 4)
    rotation_sums_kernel(const __grid_constant__ RotationSums list, const __grid_constant__ ExtendedSumArgs s) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= (std::size_t{1} << s.log_n)) return;
  rotation_sums_at<Sums>(list, s, wide_rows_first(blockIdx.y, s.rows, s.q_rows), k,
                         reinterpret_cast<u128*>(shared_bytes) + threadIdx.x, blockDim.x);
}

struct RotationOutputList {
  std::uint64_t* b[kMaxRotationTerms];
  std::uint64_t* a[kMaxRotationTerms];
  std::uint64_t* p[kMaxRotationTerms];  // null: P rows in b and a
};

// Every term into its own output (rotate_many_extended). Block x is
// term + count x (coefficient block), so the blocks of one tile of digits
// run back to back: the digits come from L2 after the first term and DRAM
// streams the keys. (One launch per term read the 200 MB of digits from
// DRAM each time; keeping them in registers for all terms cost occupancy
// and was slower, docs/performance.md.) Five blocks an SM, as
// rotation_terms_kernel.
__global__ void __launch_bounds__(kBlock, 5)
    rotation_outputs_kernel(const __grid_constant__ RotationTermList list, int count,
                            const __grid_constant__ RotationOutputList outs,
                            const __grid_constant__ ExtendedSumArgs s) {
  const std::size_t n = std::size_t{1} << s.log_n;
  const int t = static_cast<int>(blockIdx.x % static_cast<unsigned>(count));
  const std::size_t k = (blockIdx.x / static_cast<unsigned>(count)) * static_cast<std::size_t>(blockDim.x) +
                        threadIdx.x;
  const std::size_t r = blockIdx.y;
  if (k >= n) return;
  u64 b, a;
  rotation_term<5, true, true, 2, NarrowSums::split>(list.term[t], s, term_row(s, r), r, k,
                                                     ExtendedDigits<>{s.extended, s.rows, n, r}, b, a);
  const SplitRows out{outs.b[t], outs.a[t], outs.p[t], s.q_rows, s.rows, n};
  out.row_b(r)[k] = b;
  out.row_a(r)[k] = a;
}

// One thread per (row, k): each term's two words are loaded once and
// multiply-added into every output's accumulators, so one pass over the
// terms serves up to kMaxProductOutputs sums. Outputs is a template argument
// so the loads of one term carry no guard: with a run-time output count each
// plaintext load sat behind its own branch and the loads of a term were
// issued one after another, a memory latency each (docs/performance.md).
// __grid_constant__ lets the runtime term index read the parameter space
// without a local copy. A plaintext stored one word a block (the lazy
// BSGS's diagonals) is one word for a thread block's 256 coefficients, an
// L1 broadcast, so the pass streams only the terms, and its multiply-adds
// are what bound it (session 37). The thread's body: plain_product_sums.cuh.
template <int Outputs>
__global__ void products_sums_kernel(const __grid_constant__ ProductSums s, bool accumulate, std::size_t first_row,
                                     std::size_t rows, int log_n, const DeviceModulus* __restrict__ moduli) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t r = blockIdx.y;
  if (k >= n) return;
  terms::plain_product_sums_at<Outputs>(s, accumulate, r * n + k, rows * n, moduli[first_row + r]);
}

using ProductsSumsKernel = void (*)(ProductSums, bool, std::size_t, std::size_t, int, const DeviceModulus*);

template <int... Outputs>
ProductsSumsKernel products_sums_for(int outputs, std::integer_sequence<int, Outputs...>) {
  constexpr ProductsSumsKernel kernels[] = {products_sums_kernel<Outputs + 1>...};
  return kernels[outputs - 1];
}

struct ScaleDownItems {
  ScaleDownItem item[kMaxScaleDownItems];
};

__global__ void scale_down_finish_kernel(const __grid_constant__ DeviceScaleDown s,
                                         const __grid_constant__ ScaleDownItems items, std::size_t first_kept_row,
                                         int log_n, const DeviceModulus* __restrict__ moduli) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t r = blockIdx.y;
  if (k >= n) return;
  const ScaleDownItem& it = items.item[blockIdx.z];
  const u64 q = moduli[first_kept_row + r].value;
  const std::size_t i = r * n + k;
  u64 y = mul_shoup(sub_mod(it.x[i], it.converted[i], q), s.inverse_mod_kept[r], s.inverse_mod_kept_shoup[r], q);
  if (it.addend) y = add_mod(y, it.addend[i], q);
  it.out[i] = y;
}

__global__ void decrypt_kernel(const u64* __restrict__ ct, std::size_t parts, const u64* __restrict__ secret,
                               u64* __restrict__ out, std::size_t first_row, std::size_t part_words, int log_n,
                               const DeviceModulus* __restrict__ moduli) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= part_words) return;
  const DeviceModulus m = moduli[first_row + (i >> log_n)];
  const u64 s = secret[(first_row << log_n) + i];
  // Horner in s, as the CPU decryptor: c0 + s (c1 + s c2).
  u64 acc = ct[(parts - 1) * part_words + i];
  for (std::size_t p = parts - 1; p-- > 1;) acc = add_mod(mul_mod(acc, s, m), ct[p * part_words + i], m.value);
  out[i] = add_mod(ct[i], mul_mod(acc, s, m), m.value);
}

struct WordCopies {
  WordCopy copy[kMaxWordCopies];
};

// blockIdx.y: the copy; two words a thread (every copy here is whole rows).
__global__ void copy_words_kernel(WordCopies copies) {
  overlap_with_neighbours();
  const WordCopy c = copies.copy[blockIdx.y];
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; 2 * i < c.words;
       i += stride) {
    if (2 * i + 1 < c.words) {
      reinterpret_cast<ulonglong2*>(c.destination)[i] = reinterpret_cast<const ulonglong2*>(c.source)[i];
    } else {
      c.destination[2 * i] = c.source[2 * i];
    }
  }
}

// Row r of the input to extended row r of the digit that owns it.
__global__ void copy_own_rows_kernel(const u64* __restrict__ input, u64* __restrict__ extended,
                                     const std::uint32_t* __restrict__ starts, int digits, std::size_t ext_rows,
                                     int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::uint32_t r = starts[0] + blockIdx.y;
  if (k >= n) return;
  int d = 0;
  while (d + 1 < digits && starts[d + 1] <= r) ++d;
  extended[(static_cast<std::size_t>(d) * ext_rows + r) * n + k] = input[static_cast<std::size_t>(blockIdx.y) * n + k];
}

// The rotation kernels' narrow rows sum their products in 64-bit words.
void check_split_digits(const char* launcher, const ExtendedSumArgs& args) {
  if (args.digits > kMaxSplitSumDigits) {
    throw InvalidArgument(std::string(launcher) + ": " + std::to_string(args.digits) + " digits (at most " +
                          std::to_string(kMaxSplitSumDigits) + ")");
  }
}

}  // namespace

void launch_copy_own_rows(const u64* input, u64* extended, const std::uint32_t* own_row_starts, int digits,
                          std::size_t q_rows, std::size_t ext_rows, int log_n, cudaStream_t stream) {
  const dim3 grid(blocks_for(std::size_t{1} << log_n), static_cast<unsigned>(q_rows));
  copy_own_rows_kernel<<<grid, kBlock, 0, stream>>>(input, extended, own_row_starts, digits, ext_rows, log_n);
  FHE_CUDA_CHECK_LAUNCH("copy_own_rows_kernel");
}

void launch_elementwise(Elementwise op, const u64* a, const u64* b, u64* out, PolyShape shape,
                        std::size_t b_parts, const DeviceModulus* moduli, cudaStream_t stream) {
  const std::size_t part_words = shape.rows << shape.log_n;
  const std::size_t total = shape.parts * part_words;
  elementwise_kernel<<<blocks_for(total), kBlock, 0, stream>>>(op, a, b, out, shape.first_row, shape.rows,
                                                               part_words, total, b_parts, shape.log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("elementwise_kernel");
}

void launch_tensor(const u64* a, const u64* b, u64* out, PolyShape shape, const DeviceModulus* moduli,
                   const double* q_inverse, cudaStream_t stream) {
  const std::size_t part_words = shape.rows << shape.log_n;
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(tensor_kernel, dim3(blocks_for(part_words)), dim3(kBlock), 0, stream, a,
                                             b, out, shape.first_row, part_words, shape.log_n, moduli, q_inverse));
}

void launch_conversion(const DeviceConversion* conversions, std::size_t conversion_stride, const u64* source,
                       std::size_t source_stride, u64* destination, std::size_t destination_stride, int items,
                       int max_targets, int max_sources, int log_n, cudaStream_t stream, bool sources_scratch) {
  const dim3 grid = conversion_grid(log_n, items, max_targets, kModUpTargetsPerSlice);
  const auto kernel = max_sources <= kFewSources ? conversion_array_kernel<kFewSources, kFewSourceBlocks>
                                                 : conversion_array_kernel<kMaxConversionSources, 3>;
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(kernel, grid, dim3(kBlock), 0, stream, conversions, conversion_stride,
                                             source, source_stride, destination, destination_stride, log_n,
                                             sources_scratch));
}

void launch_conversion(const DeviceConversion& conversion, const u64* source, std::size_t source_stride,
                       u64* destination, std::size_t destination_stride, int items, int log_n,
                       cudaStream_t stream) {
  const dim3 grid = conversion_grid(log_n, items, conversion.targets, kScaleDownTargetsPerSlice);
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(conversion_value_kernel, grid, dim3(kBlock), 0, stream, conversion,
                                             source, source_stride, destination, destination_stride, log_n));
}

void launch_inner_product(const u64* extended, int digits, const std::uint8_t* key, const SwitchKeyLayout& layout,
                          int first_digit, u64* acc_b, u64* acc_a, u64* p_block, std::size_t first_row,
                          std::size_t q_rows, std::size_t rows, int log_n, const DeviceModulus* moduli,
                          cudaStream_t stream) {
  const std::size_t n = std::size_t{1} << log_n;
  const dim3 grid(blocks_for(n), static_cast<unsigned>(rows));
  inner_product_kernel<<<grid, kBlock, 0, stream>>>(extended, digits, key, layout, first_digit,
                                                    SplitRows{acc_b, acc_a, p_block, q_rows, rows, n}, first_row,
                                                    moduli);
  FHE_CUDA_CHECK_LAUNCH("inner_product_kernel");
}

void launch_rotation_outputs(const RotationTerm* terms, int count, std::uint64_t* const* outs_b,
                             std::uint64_t* const* outs_a, std::uint64_t* const* outs_p,
                             const ExtendedSumArgs& args, cudaStream_t stream) {
  check_split_digits("launch_rotation_outputs", args);
  RotationTermList list;
  RotationOutputList outs;
  for (int t = 0; t < count && t < kMaxRotationTerms; ++t) {
    list.term[t] = terms[t];
    outs.b[t] = outs_b[t];
    outs.a[t] = outs_a[t];
    outs.p[t] = outs_p ? outs_p[t] : nullptr;
  }
  const dim3 grid(blocks_for(std::size_t{1} << args.log_n) * static_cast<unsigned>(count),
                  static_cast<unsigned>(args.rows));
  rotation_outputs_kernel<<<grid, kBlock, 0, stream>>>(list, count, outs, args);
  FHE_CUDA_CHECK_LAUNCH("rotation_outputs_kernel");
}

void launch_rotation_terms(const RotationTerm* terms, int count, const ExtendedSumArgs& args,
                           cudaStream_t stream) {
  check_split_digits("launch_rotation_terms", args);
  RotationTermList list;
  for (int t = 0; t < count && t < kMaxRotationTerms; ++t) list.term[t] = terms[t];
  const dim3 grid(blocks_for(std::size_t{1} << args.log_n), static_cast<unsigned>(args.rows));
  rotation_terms_kernel<<<grid, kBlock, 0, stream>>>(list, count, args);
  FHE_CUDA_CHECK_LAUNCH("rotation_terms_kernel");
}

void launch_rotation_sums(const RotationSums& sums, const ExtendedSumArgs& args, cudaStream_t stream) {
  if (sums.term_count < 1 || sums.term_count > kMaxRotationSumTerms || sums.sum_count < 1 ||
      sums.sum_count > kMaxRotationSums) {
    throw InvalidArgument("launch_rotation_sums: " + std::to_string(sums.term_count) + " terms and " +
                          std::to_string(sums.sum_count) + " sums (1 to " + std::to_string(kMaxRotationSumTerms) +
                          " and 1 to " + std::to_string(kMaxRotationSums) + " per launch)");
  }
  using Kernel = void (*)(RotationSums, ExtendedSumArgs);
  constexpr Kernel kernels[] = {rotation_sums_kernel<1>, rotation_sums_kernel<2>, rotation_sums_kernel<3>,
                                rotation_sums_kernel<4>, rotation_sums_kernel<5>};
  static_assert(std::size(kernels) == kMaxRotationSums);
  const dim3 grid(blocks_for(std::size_t{1} << args.log_n), static_cast<unsigned>(args.rows));
  const std::size_t shared = std::size_t{2} * static_cast<std::size_t>(sums.sum_count) * kBlock * sizeof(u128);
  kernels[sums.sum_count - 1]<<<grid, kBlock, shared, stream>>>(sums, args);
  FHE_CUDA_CHECK_LAUNCH("rotation_sums_kernel");
}

void launch_products_sums(const ProductSums& sums, bool accumulate, std::size_t first_row, std::size_t rows,
                          int log_n, const DeviceModulus* moduli, cudaStream_t stream) {
  const dim3 grid(blocks_for(std::size_t{1} << log_n), static_cast<unsigned>(rows));
  if (sums.output_count < 1 || sums.output_count > kMaxProductOutputs) {
    throw InvalidArgument("launch_products_sums: " + std::to_string(sums.output_count) + " outputs (1 to " +
                          std::to_string(kMaxProductOutputs) + " per launch)");
  }
  const ProductsSumsKernel kernel =
      products_sums_for(sums.output_count, std::make_integer_sequence<int, kMaxProductOutputs>{});
  kernel<<<grid, kBlock, 0, stream>>>(sums, accumulate, first_row, rows, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("products_sums_kernel");
}

void launch_scale_down_finish(const DeviceScaleDown& scale_down, const ScaleDownItem* items, int item_count,
                              std::size_t first_kept_row, int log_n, const DeviceModulus* moduli,
                              cudaStream_t stream) {
  ScaleDownItems packed;
  for (int i = 0; i < item_count && i < kMaxScaleDownItems; ++i) packed.item[i] = items[i];
  const dim3 grid(blocks_for(std::size_t{1} << log_n), static_cast<unsigned>(scale_down.kept_rows),
                  static_cast<unsigned>(item_count));
  scale_down_finish_kernel<<<grid, kBlock, 0, stream>>>(scale_down, packed, first_kept_row, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("scale_down_finish_kernel");
}

void launch_decrypt(const u64* ct, std::size_t parts, const u64* secret, u64* out, std::size_t first_row,
                    std::size_t rows, int log_n, const DeviceModulus* moduli, cudaStream_t stream) {
  const std::size_t part_words = rows << log_n;
  decrypt_kernel<<<blocks_for(part_words), kBlock, 0, stream>>>(ct, parts, secret, out, first_row, part_words,
                                                                log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("decrypt_kernel");
}

void launch_copy_words(const WordCopy* copies, int count, cudaStream_t stream) {
  if (count < 1 || count > kMaxWordCopies) {
    throw InvalidArgument("launch_copy_words: " + std::to_string(count) + " copies (1 to " +
                          std::to_string(kMaxWordCopies) + " per launch)");
  }
  WordCopies packed;
  std::size_t most = 0;
  for (int i = 0; i < count; ++i) {
    const WordCopy& c = copies[i];
    // The paired loads need 16-byte alignment.
    if ((reinterpret_cast<std::uintptr_t>(c.source) | reinterpret_cast<std::uintptr_t>(c.destination)) % 16 != 0) {
      throw InvalidArgument("launch_copy_words: copy " + std::to_string(i) + " is not 16-byte aligned");
    }
    packed.copy[i] = c;
    most = std::max(most, c.words);
  }
  if (most == 0) return;
  const dim3 grid(blocks_for((most + 1) / 2), static_cast<unsigned>(count));
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(copy_words_kernel, grid, dim3(kBlock), 0, stream, packed));
}

}  // namespace fhe::cuda
