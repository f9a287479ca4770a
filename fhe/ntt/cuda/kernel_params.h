// Plain structs passed by value to the CUDA NTT kernels, and the twiddle
// addressing that lets one kernel serve both the compact bit-reversed rows
// and the strict radix per-digit layout. CUDA-free, so host code and the
// host emulation test build the very same values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/arith/modarith.h"
#include "fhe/core/host_device.h"

namespace fhe::ntt::gpu {

// The shared-memory region works on contiguous 256-word tiles; each tile is
// handled by 16 threads holding 16 words each, in two register rounds of 4
// stages (columns t + 16k, then rows 16t + k) with one exchange between.
inline constexpr int kTileBits = 8;
inline constexpr int kTileWords = 1 << kTileBits;
inline constexpr int kThreadsPerTile = 16;
inline constexpr int kWordsPerThread = 16;
// One pad word per 16 keeps the row round (stride 16 words) free of bank conflicts.
inline constexpr int kPaddedTileWords = kTileWords + kTileWords / 16;
FHE_HD std::uint32_t padded(std::uint32_t word) { return word + (word >> 4); }
// A thread's column of a tile (words x + 16 k) and its row (16 x + k, k <
// 16): padded(x + 16 k) = padded(x) + 17 k and padded(16 x + k) = 17 x + k,
// so a word's slot is one add on the thread's first. Written as padded(x +
// 16 k) the compiler, unable to rule out a wrap of the sum, recomputes each
// pad (three instructions a word).
FHE_HD std::uint32_t padded_column_word(std::uint32_t x, int k) {
  return padded(x) + 17u * static_cast<std::uint32_t>(k);
}
FHE_HD std::uint32_t padded_row_word(std::uint32_t x, int k) { return 17u * x + static_cast<std::uint32_t>(k); }

inline constexpr int kMaxGlobalPassStages = 4;

// The pass-pair kernel's block (pass_pair.cuh): 4096 words (the pass-region
// block's 16 tiles), 16 a thread, and 16 pad words every 256 in shared memory.
inline constexpr std::uint32_t kPairBlockWordsLog = 12;
inline constexpr std::uint32_t kPairBlockWords = 1u << kPairBlockWordsLog;
inline constexpr std::uint32_t kPairBlockThreads = kPairBlockWords / kWordsPerThread;
inline constexpr std::uint32_t kPairBlockSharedWords = kPairBlockWords + kPairBlockWords / 16;
// The pass-group kernels' shapes (the same blocks): three or four forward
// passes that the caller's region follows, the eight stages before the
// region at logN 16 of group8 (3, 3, 2) and of group4 and radix4 (2, 2,
// 2, 2).
inline constexpr int kMaxGroupedPasses = 4;
struct PassGroupShape {
  int count;
  int stages[kMaxGroupedPasses];
};
inline constexpr PassGroupShape kPassGroupShapes[] = {{3, {3, 3, 2, 0}}, {4, {2, 2, 2, 2}}};
inline constexpr int kPassGroupShapeCount = sizeof(kPassGroupShapes) / sizeof(kPassGroupShapes[0]);

// Offsets a global-pass thread takes side by side (16-byte accesses, each
// twiddle serving two butterflies). A 64-bit 4-stage pass takes one: two
// would hold 64 data registers next to its 15 twiddle pairs and leave one
// block per SM (seen: 228 registers), too few warps to hide memory latency.
FHE_HD constexpr int global_pass_lanes(int stage_count, std::size_t word_bytes) {
  return stage_count == 4 && word_bytes == 8 ? 1 : 2;
}

// Launches with fewer than two warps a scheduler (8 an SM) are bound by
// each warp's chain of dependent instructions: a one-row transform at logN 16
// runs one warp an SM at 26 % issue (Nsight Compute, session 9). Their
// split kernels give each thread half the words, so twice the warps share
// the work: a global pass takes one offset where it takes two, or splits
// an offset's 16 words between two neighbouring threads ("paired", the
// 64-bit 4-stage pass); the shared region runs a tile with 32 threads of 8
// words in three rounds of 3, 3 and 2 stages (split_region.cuh). The
// threshold was 4 warps an SM until session 14; 8 also covers the
// ModDown's inverse of 2 x 4 P rows (7.75 warps an SM).
inline constexpr int kSplitBelowWarpsPerSm = 8;
inline constexpr int kSplitThreadsPerTile = 32;
inline constexpr int kSplitWordsPerThread = 8;

// A global pass's threads: `lanes` neighbouring offsets each, an offset's
// 2^G words held by one thread or, `paired`, by two (an exchange through
// shared memory before the stage that pairs neighbouring words).
struct GlobalPassLayout {
  int lanes;
  bool paired;
};
FHE_HD constexpr GlobalPassLayout global_pass_layout(int stage_count, std::size_t word_bytes, bool split) {
  const int lanes = global_pass_lanes(stage_count, word_bytes);
  if (!split) return {lanes, false};
  return lanes == 2 ? GlobalPassLayout{1, false} : GlobalPassLayout{1, true};
}
// Thread items per row of a global pass: log2 of (N / 2^G) / lanes x (2 if paired).
FHE_HD constexpr int global_pass_items_log(int log_n, int stage_count, GlobalPassLayout layout) {
  return log_n - stage_count - (layout.lanes == 2 ? 1 : 0) + (layout.paired ? 1 : 0);
}

// The shared-region kernels exist for regions of 8 and 6 stages (skipping
// the tile's first 0 or 2 local stages): every backend's region at logN >= 8.
FHE_HD constexpr bool shared_region_supported(int stage_count) {
  return stage_count == 8 || stage_count == 6;
}
inline constexpr int kMaxBlockThreads = 256;
// Register caps of the fused kernels (__launch_bounds__ minimum blocks of
// 256 threads per SM), one instantiation per launch kind. Measured on the
// H200 (docs/performance.md): 4 (64 registers) slowed the 64-bit 4-stage
// passes by 7-14% and one-row transforms by up to 50% (15 prefetched twiddle
// pairs no longer fit, their loads serialise again). 3 (85 registers) makes
// many-row transforms 1-3% faster, but one-row forwards 25% slower. So a
// launch whose grid exceeds what 2 blocks per SM hold
// (LaunchShape::throughput) gets the 3-block kernels, and one that does not,
// the latency kernels capped at 2 (128 registers). The 64-bit 4-stage
// forward lost 6% at 3 until its words were addressed by index (session
// 29: 80 registers without spills; the 39-row forward -2%, a level-0 key
// switch -1%).
inline constexpr int kMinBlocksPerSm = 2;
inline constexpr int kThroughputMinBlocksPerSm = 3;

// A twiddle and its Shoup companion side by side: one 16-byte (or 8-byte) load.
template <typename Word>
struct alignas(2 * sizeof(Word)) TwiddlePair {
  Word value;
  Word companion;
};

// Per-row constants of the final pass.
template <typename Word>
struct RowConstants {
  Word q;
  Word n_inverse, n_inverse_shoup;  // N^-1 mod q
  // inverse[1] * N^-1: the inverse's last butterfly (stage 0) folds the N^-1
  // scaling into its twiddle, so the scaling costs no extra pass.
  Word scaled_stage0, scaled_stage0_shoup;
  // Nonzero for a 64-bit row whose kernels run the double-precision
  // butterflies (fp64_arith.cuh); its table then holds the twiddles as
  // doubles packed at the start of its pair slots, and fp64_q_inverse is
  // fl(1 / q).
  std::uint32_t fp64 = 0;
  double fp64_q_inverse = 0;
};

// Where the twiddle of (stage, group) sits in a row's table, for the stages
// of one pass indexed by their position r inside the pass:
//   index = base[r] + (group >> shift[r]) * stride[r] + (group & (2^shift[r] - 1))
// Compact rows: base 2^s, shift 0, stride 1 (index 2^s + group). Strict radix
// layout: base = digit offset + 2^rd - 1, shift rd, stride R - 1, so the R-1
// twiddles of one radix-R butterfly are contiguous.
// A thread loads, for the stage at round position j (r mod 4: the kernels
// fuse rounds of at most 4 stages), the 2^j groups (b << j) + g, g < 2^j.
// They lie side by side when shift[r] >= j or stride[r] == 1; `consecutive`
// says that holds for every stage of the pass (all compact passes, strict
// radix passes whose digits start their rounds), and the kernels then load
// a stage's twiddles from one address with constant offsets instead of
// evaluating the formula per twiddle.
inline constexpr int kRoundStages = 4;

struct StageTwiddleAddress {
  std::uint32_t base[kTileBits];
  std::uint32_t stride[kTileBits];
  std::uint32_t shift[kTileBits];
  bool consecutive;
};

FHE_HD constexpr bool stage_groups_consecutive(const StageTwiddleAddress& address, int r) {
  return address.shift[r] >= static_cast<std::uint32_t>(r % kRoundStages) || address.stride[r] == 1;
}

FHE_HD std::uint32_t twiddle_index(const StageTwiddleAddress& address, int r,
                                   std::uint32_t group) {
  const std::uint32_t shift = address.shift[r];
  return address.base[r] + (group >> shift) * address.stride[r] + (group & ((1u << shift) - 1u));
}

// Division of row and block indices (below 2^24) by a launch constant
// d >= 1 with one multiply and a shift instead of the device's division
// sequence (about 20 instructions): with l = ceil(log2 d) and
// m = ceil(2^(24+l) / d), floor(n / d) = floor(n m / 2^(24+l)) for every
// n < 2^24 (the round-up method: the error n (m d - 2^(24+l)) / (d 2^(24+l))
// stays below 2^-l <= 1/d). m <= 2^25 fits a word.
struct FastDivisor {
  static constexpr int kNumeratorBits = 24;
  std::uint32_t value = 1;
  std::uint32_t multiplier = 1u << kNumeratorBits;
  std::uint32_t shift = kNumeratorBits;

  FastDivisor() = default;
  FHE_HD FastDivisor(std::uint32_t d) : value(d) {  // NOLINT: converts like the integer it replaces
    int l = 0;
    while ((std::uint64_t{1} << l) < d) ++l;
    shift = static_cast<std::uint32_t>(kNumeratorBits + l);
    multiplier = static_cast<std::uint32_t>(((std::uint64_t{1} << shift) + d - 1) / d);
  }
  FHE_HD std::uint32_t quotient(std::uint32_t n) const {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * multiplier) >> shift);
  }
  FHE_HD std::uint32_t remainder(std::uint32_t n) const { return n - quotient(n) * value; }
};

// log2 of a power of two (a block's tile count).
FHE_HD std::uint32_t log2_of_power_of_two(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(x)) - 1);
#else
  std::uint32_t l = 0;
  while ((1u << l) < x) ++l;
  return l;
#endif
}

// The launch's blocks (or rows of blocks) from the last: QP rows put the wide
// primes (integer arithmetic, slower than the double-precision rows of
// fp64_arith.cuh) last, so they start first instead of forming the tail.
FHE_HD std::uint32_t last_first(std::uint32_t index, std::uint32_t count) { return count - 1 - index; }

// The centred lift of a word x of a row modulo D (x in [0, D)) to a row's
// prime q: [x - D * (x > floor(D / 2))]_q, the one-source centred basis
// conversion. A forward transform may form its input this way as its first
// launch loads it (PassArgs::lift): the rescale takes the dropped prime's
// row, in coefficient form, to every kept prime, and the ModUp a digit of
// one prime to every other extended row, without writing those rows first.
struct CentredLiftRow {
  std::uint64_t modulus_mod_q;  // [D]_q
  std::uint64_t one_shoup;      // floor(2^64 / q): x mod q by one Shoup product
  std::uint64_t half;           // floor(D / 2)
};

inline CentredLiftRow make_centred_lift_row(std::uint64_t d, std::uint64_t q) {
  return {d % q, shoup_companion<std::uint64_t>(1, q), d / 2};
}

FHE_HD std::uint64_t centred_lift(std::uint64_t x, const CentredLiftRow& c, std::uint64_t q) {
  const std::uint64_t r = mul_shoup<std::uint64_t>(x, 1, c.one_shoup, q);  // x mod q
  return x > c.half ? sub_mod(r, c.modulus_mod_q, q) : r;
}

// The batch blocks from `first_block` on lift their input; earlier blocks
// read `data` as an unlifted pass does (the ModUp's digits of several
// primes, converted by their own kernel before the transform).
struct CentredLift {
  const std::uint64_t* rows = nullptr;        // one row of N words per lifted block; null: no lift
  const CentredLiftRow* constants = nullptr;  // per row of a batch block, per lifted block
  std::uint32_t first_block = 0;
  // Lifted block b's constants start (b - first_block) * constants_stride
  // entries in; 0: every lifted block has the same (one D).
  std::uint32_t constants_stride = 0;
};

// Arguments of a fused pass (global group/digit or shared region).
template <typename Word>
struct PassArgs {
  std::uint64_t* data;                  // row_count rows of N words
  const TwiddlePair<Word>* twiddles;    // plan rows x table_stride pairs
  const RowConstants<Word>* constants;  // per plan row
  std::uint32_t first_row;              // plan row of data row 0
  // Data row r is plan row first_row + r % batch_rows: a batch of blocks,
  // each covering the same plan rows, in one launch (batch_rows = row_count
  // for a single block); batch_count = row_count / batch_rows.
  FastDivisor batch_rows;
  FastDivisor batch_count;
  std::uint32_t row_count;
  std::uint32_t log_n;
  std::uint32_t first_stage;  // forward stage of the pass's first stage
  std::uint32_t stage_count;
  std::uint32_t table_stride;  // pairs per row in `twiddles`
  StageTwiddleAddress address;
  // Rows a batched forward transform may leave as they are (the ModUp's
  // digits: each digit's own rows, which the evaluator has in NTT form):
  // in batch block b, rows [skip_starts[b], skip_starts[b + 1]) of the
  // block. A device array of batch_count + 1 entries; null skips nothing.
  // Such rows hold unspecified words afterwards.
  const std::uint32_t* skip_starts = nullptr;
  // The input rows of an inverse transform run out of place: its first
  // launch, the shared-memory region, reads them and writes `data`, so the
  // caller needs no copy. Null: in place. Batch block b's rows start
  // source_batch_words words after block b - 1's (0: batch_rows rows, the
  // layout of `data`), so the rows can be a strip of each ciphertext part.
  const std::uint64_t* source = nullptr;
  std::uint64_t source_batch_words = 0;
  // A forward transform's input lifted from one row per batch block (the
  // first launch, a global pass, reads `lift.rows` instead of `data`).
  CentredLift lift{};
  // The launch visits its rows (or blocks) from the first instead of from
  // the last (visit_index; launch_plan.h's rows_ascending decides).
  bool rows_ascending = false;
};

// A pass-group launch's passes in stage order (the first `count` of its
// shape).
template <typename Word>
struct PassGroupArgs {
  PassArgs<Word> pass[kMaxGroupedPasses];
};

// The row (global pass) or block (region) that launch index `index` of
// `count` works on: from the last by default (last_first), from the first
// when the launch starts where the launch before it ended.
template <typename Word>
FHE_HD std::uint32_t visit_index(const PassArgs<Word>& a, std::uint32_t index, std::uint32_t count) {
  return a.rows_ascending ? index : last_first(index, count);
}

// The word a launch reads for the word `offset` words into `data`: in
// `source` when it is set (at its batch stride), else in `data`.
template <typename Word>
FHE_HD const std::uint64_t* input_at(const PassArgs<Word>& a, std::size_t offset) {
  if (a.source == nullptr) return a.data + offset;
  if (a.source_batch_words == 0) return a.source + offset;
  const auto data_row = static_cast<std::uint32_t>(offset >> a.log_n);
  const std::uint32_t block = a.batch_rows.quotient(data_row);
  const std::size_t in_block = offset - (static_cast<std::size_t>(block * a.batch_rows.value) << a.log_n);
  return a.source + block * a.source_batch_words + in_block;
}

// A plan's last forward pass when it is the shared-memory region, for a
// kernel that runs the region itself on tiles of its choosing (the
// evaluator's ModUp fused with the key inner product). The arguments of the
// plan's word type are set: `wide` (64-bit) or `narrow`.
struct ForwardRegion {
  bool is_wide = true;
  PassArgs<std::uint64_t> wide{};
  PassArgs<std::uint32_t> narrow{};
  // The NTT's own block layout for the region (LaunchShape::tiles_per_block),
  // for a caller whose kernel keeps it (the ModDown and rescale finish).
  std::uint32_t tiles_per_block = 0;
  // The global pass before the region when it is left to the caller's
  // kernel too (forward_batch_before_region's leave_pass), for
  // pass_in_region_block on blocks of 2^G tiles (tiles_per_block is then
  // 2^G); stage_count 0 otherwise.
  PassArgs<std::uint64_t> pass_wide{};
  PassArgs<std::uint32_t> pass_narrow{};
  std::uint32_t pass_stages() const { return is_wide ? pass_wide.stage_count : pass_narrow.stage_count; }
};

// One radix-2 butterfly of radix2_indexed: its top word and twiddle index.
struct alignas(8) IndexEntry {
  std::uint32_t top;
  std::uint32_t twiddle;
};

template <typename Word>
struct IndexedStageArgs {
  std::uint64_t* data;
  const TwiddlePair<Word>* twiddles;  // compact rows
  const RowConstants<Word>* constants;
  const IndexEntry* entries;  // this stage's N/2 entries, shared by all rows
  std::uint32_t first_row;
  FastDivisor batch_rows;  // as in PassArgs
  std::uint32_t log_n;
  std::uint32_t stage;
  std::uint32_t table_stride;
  const std::uint32_t* skip_starts = nullptr;  // as in PassArgs
};

// The plan row (prime) of data row `row` of a launch. Rows of the first (or
// only) block skip the division: an unbatched transform pays no remainder.
template <typename Args>
FHE_HD std::uint32_t plan_row_of(const Args& a, std::uint32_t row) {
  return a.first_row + (row < a.batch_rows.value ? row : a.batch_rows.remainder(row));
}

// Whether data row `row` of a launch is one its pass may skip (skip_starts).
template <typename Args>
FHE_HD bool skipped_row(const Args& a, std::uint32_t row) {
  if (a.skip_starts == nullptr) return false;
  const std::uint32_t block = a.batch_rows.quotient(row);
  const std::uint32_t in_block = row - block * a.batch_rows.value;
  return in_block >= a.skip_starts[block] && in_block < a.skip_starts[block + 1];
}

}  // namespace fhe::ntt::gpu
