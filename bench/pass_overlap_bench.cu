// What keeps a pass kernel from its bytes (cuda_pass_overlap/; the
// measurements: docs/performance.md, session 58). The level-0 ModUp pass
// pair runs at about 60 % of the DRAM peak and half its issue slots
// (session 54). This bench times one round trip of 390 rows x 2^16 words
// (the level-0 ModUp's extended rows, 204 MB) through kernels that do the
// same work a 4096-word tile, 16 words a thread: 4 radix-2 stages of the
// library's butterflies (fp64_arith.cuh for a 40-bit modulus,
// IntegerArith's lazy Shoup ones for a 60-bit one), an exchange through
// shared memory to 16 words of a row, 4 more stages, the exchange back, a
// coalesced store. "/move" skips the butterflies.
//   "regs": one tile a block, loaded from global memory into registers, 3
//     blocks an SM (the pair kernel's shape); its layouts: the tile
//     contiguous or the pair's first pass's strided words, one small
//     twiddle table or one a row, FP64 rows, 60-bit rows, or both mixed in
//     one launch (spread, or the 60-bit blocks first) or split into two
//     kernels (in turn, or on a second stream), the words' stride a
//     constant or a kernel argument.
//   "bulkS-B": persistent blocks (B an SM) of 8 consumer warps and one
//     producer warp, whose lane 0 copies tile after tile into S
//     shared-memory buffers (cp.async.bulk, completion counted on an
//     mbarrier) while the consumers work on the tile before; consumers
//     free a buffer (a second mbarrier) once they hold its words.
// Cold samples (the L2 flushed first); the bulk kernels must leave the
// contiguous FP64 register kernel's words.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/l2_flush.cuh"
#include "fhe/core/device_info.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace {

using fhe::cuda::DeviceBuffer;
using fhe::ntt::gpu::Fp64Arith;
using u64 = std::uint64_t;

constexpr int kLogN = 16;
constexpr std::size_t kN = std::size_t{1} << kLogN;
constexpr int kRows = 390;
constexpr int kThreads = 256, kWords = 16, kTileWords = kThreads * kWords;
constexpr unsigned kTileBytes = kTileWords * sizeof(u64);
constexpr unsigned kTiles = kRows * kN / kTileWords;
constexpr std::size_t kTwiddles = std::size_t{kRows} * 576;  // kRowTwiddleStride a row
constexpr u64 kModulus = (u64{1} << 40) - 87;  // below 2^42: the FP64 butterflies
constexpr u64 kWideModulus = (u64{1} << 60) - 93;  // the base and P primes' width: the Shoup butterflies
using fhe::ntt::gpu::IntegerArith;
using Twiddle = fhe::ntt::gpu::TwiddlePair<u64>;
constexpr int kIterations = 50;

// Four stages on a thread's 16 words, 32 twiddles a round (doubles for
// Fp64Arith, which reads its table as doubles, pairs for IntegerArith).
template <typename Arith>
__device__ void four_stages(u64 (&v)[kWords], const Arith& arith, const Twiddle* twiddles) {
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    const int half = 8 >> s;
#pragma unroll
    for (int j = 0; j < kWords; ++j) {
      if (j & half) continue;
      const auto w = arith.twiddle(twiddles, s * 8 + j / (2 * half));
      arith.forward(v[j], v[j + half], w);
    }
  }
}

// Word k of thread t: arrangement A is a column (k * 256 + t), B a row's 16
// words rotated by the row so a warp's lanes meet distinct banks.
__device__ int column_word(int t, int k) { return k * kThreads + t; }
__device__ int row_word(int t, int k) { return (t % 16) * kThreads + 16 * (t / 16) + (k + t) % 16; }

// Consumer-only barrier (named barrier 1): the producer warp never joins.
__device__ void consumers_sync() { asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory"); }

// The tile's work from words in arrangement A (registers) to the same,
// exchanging through `tile` (shared, 4096 words) twice.
template <bool Arithmetic, typename Arith>
__device__ void tile_work(u64 (&v)[kWords], u64* tile, const Arith& arith, const Twiddle* first,
                          const Twiddle* second, int t) {
#pragma unroll
  for (int k = 0; k < kWords; ++k) v[k] = arith.loaded(v[k]);
  if (Arithmetic) four_stages(v, arith, first);
#pragma unroll
  for (int k = 0; k < kWords; ++k) tile[column_word(t, k)] = v[k];
  consumers_sync();
#pragma unroll
  for (int k = 0; k < kWords; ++k) v[k] = tile[row_word(t, k)];
  if (Arithmetic) four_stages(v, arith, second);
#pragma unroll
  for (int k = 0; k < kWords; ++k) tile[row_word(t, k)] = v[k];
  consumers_sync();
#pragma unroll
  for (int k = 0; k < kWords; ++k) v[k] = arith.stored(tile[column_word(t, k)], false);
}

// Layout bits of the register kernel: kStrided, the pair's first pass's
// words (16 adjacent columns of the row's 256 x 16 x 16 cube a block, word
// c + 256 i + 4096 k, 128-byte runs) instead of a contiguous tile;
// kRowTwiddles, each row its own twiddle table (576 doubles: the first
// round's 32, then 32 for each of the 16 column groups i of the second), as
// the pair's second pass reads them, instead of one 64-entry table;
// kIntegerRows, every row on a 60-bit modulus (IntegerArith's Shoup
// butterflies, as the base and P rows); kMixedRows, every seventh row so
// (14 %, their share of the level-0 ModUp's extended rows).
// kWideFirst (with kMixedRows): the 60-bit rows' blocks first, as the real
// pair visits its wide rows first (session 13). kRuntimeStep: the words'
// stride a kernel argument, as the real passes take it (PassArgs), so each
// access computes its offset instead of folding a constant into the load.
constexpr int kStrided = 1, kRowTwiddles = 2, kIntegerRows = 4, kMixedRows = 8, kWideFirst = 16;
constexpr int kRuntimeStep = 32;
constexpr unsigned kStridedStepLog = 12;  // the strided words' 4096
constexpr unsigned kWideRows = (kRows + 6) / 7;  // rows 0, 7, 14, ...
// Launch shapes of the mixed rows (not kernel layouts): two kernels in turn, or on two streams.
constexpr int kSplitSerial = 64, kSplitConcurrent = 128;

// The row a block works on: in order, or with the wide rows' blocks first.
__device__ unsigned block_row(unsigned visit, bool wide_first) {
  if (!wide_first) return visit;
  if (visit < kWideRows) return 7 * visit;
  const unsigned j = visit - kWideRows;  // the j-th row that is not a multiple of 7
  return 7 * (j / 6) + j % 6 + 1;
}

// Which rows a launch takes (the others' blocks exit at once, as the real
// pass's skipped rows do): all, only the multiples of 7, or only the others.
enum class Rows { all, sevenths, others };
constexpr int kRowTwiddleStride = 576;
constexpr unsigned kTilesPerRow = kN / kTileWords;

template <bool Arithmetic, int Layout = 0>
__global__ void __launch_bounds__(kThreads, 3) regs_kernel(u64* data, const double* twiddles,
                                                           const Twiddle* wide_twiddles, Rows rows,
                                                           unsigned step_log) {
  __shared__ u64 tile[kTileWords];
  const int t = static_cast<int>(threadIdx.x);
  const unsigned row = block_row(blockIdx.x / kTilesPerRow, Layout & kWideFirst), q = blockIdx.x % kTilesPerRow;
  if ((rows == Rows::sevenths && row % 7 != 0) || (rows == Rows::others && row % 7 == 0)) return;
  const bool strided = Layout & kStrided;
  u64* words = data + static_cast<std::size_t>(row) * kN +
               (strided ? q * 16 + t % 16 + 256 * (t / 16) : q * kTileWords + t);
  const std::uint32_t step = (Layout & kRuntimeStep) ? 1u << step_log : (strided ? 4096u : 256u);
  const bool wide = (Layout & kIntegerRows) || ((Layout & kMixedRows) && row % 7 == 0);
  // Offsets in the table's own entries (Fp64Arith::twiddle reads the pair pointer as doubles).
  const bool per_row = Layout & kRowTwiddles;
  const std::size_t first_at = per_row ? static_cast<std::size_t>(row) * kRowTwiddleStride : 0;
  const std::size_t second_at = first_at + 32 + (per_row ? 32 * (t / 16) : 0);
  const auto at = [&](std::size_t i) {
    return wide ? wide_twiddles + i : reinterpret_cast<const Twiddle*>(twiddles + i);
  };
  const Twiddle *first = at(first_at), *second = at(second_at);
  u64 v[kWords];
#pragma unroll
  for (int k = 0; k < kWords; ++k) v[k] = words[step * static_cast<std::uint32_t>(k)];
  if (wide) {
    tile_work<Arithmetic>(v, tile, IntegerArith<u64>{kWideModulus}, first, second, t);
  } else {
    tile_work<Arithmetic>(v, tile, Fp64Arith(kModulus, 1.0 / static_cast<double>(kModulus)), first, second, t);
  }
  // A run-time stride taken afresh after the tile's last barrier (an opaque
  // copy), so its 16 store offsets are not kept live through the
  // butterflies (they spilled 40 bytes at 80 registers).
  std::uint32_t store_step = step;
  if (Layout & kRuntimeStep) asm volatile("mov.b32 %0, %1;" : "=r"(store_step) : "r"(step));
#pragma unroll
  for (int k = 0; k < kWords; ++k) words[store_step * static_cast<std::uint32_t>(k)] = v[k];
}

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ void barrier_init(u64* barrier, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(count) : "memory");
}

__device__ void barrier_arrive(u64* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}

__device__ void barrier_wait(u64* barrier, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n wait:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait;\n}" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
}

// Lane 0 of the producer: the tile's bytes to `destination`, counted on `full`.
__device__ void bulk_load(void* destination, const void* source, u64* full) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(full)),
               "r"(kTileBytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(destination)),
      "l"(source), "r"(kTileBytes), "r"(shared_address(full))
      : "memory");
}

template <int Stages, int MinBlocks, bool Arithmetic>
__global__ void __launch_bounds__(kThreads + 32, MinBlocks) bulk_kernel(u64* data, const double* twiddles) {
  extern __shared__ __align__(128) u64 buffers[];  // Stages tiles
  __shared__ __align__(8) u64 full[Stages], empty[Stages];
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    for (int b = 0; b < Stages; ++b) {
      barrier_init(&full[b], 1);
      barrier_init(&empty[b], kThreads);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t >= kThreads) {  // the producer warp
    if (t != kThreads) return;
    int n = 0;
    for (unsigned tile = blockIdx.x; tile < kTiles; tile += gridDim.x, ++n) {
      const int b = n % Stages;
      if (n >= Stages) barrier_wait(&empty[b], ((n / Stages) - 1) & 1);
      bulk_load(buffers + b * kTileWords, data + static_cast<std::size_t>(tile) * kTileWords, &full[b]);
    }
    return;
  }
  int n = 0;
  for (unsigned tile = blockIdx.x; tile < kTiles; tile += gridDim.x, ++n) {
    const int b = n % Stages;
    u64* words = buffers + b * kTileWords;
    barrier_wait(&full[b], (n / Stages) & 1);
    u64 v[kWords];
#pragma unroll
    for (int k = 0; k < kWords; ++k) v[k] = words[column_word(t, k)];
    const auto* table = reinterpret_cast<const Twiddle*>(twiddles);
    tile_work<Arithmetic>(v, words, Fp64Arith(kModulus, 1.0 / static_cast<double>(kModulus)), table, table + 32, t);
    // Every word of the buffer is in some thread's registers; the fence
    // orders this thread's shared accesses before the next bulk copy's.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    barrier_arrive(&empty[b]);
    u64* out = data + static_cast<std::size_t>(tile) * kTileWords;
#pragma unroll
    for (int k = 0; k < kWords; ++k) out[column_word(t, k)] = v[k];
  }
}

__global__ void fill(u64* words, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    words[i] = (i * 0x9e3779b97f4a7c15ULL) % kModulus;
  }
}

constexpr int kPairLike = kStrided | kRowTwiddles;

// The register kernel of a layout among those the benchmarks name.
template <bool Arithmetic>
auto regs_kernel_of(int layout) {
  using Kernel = decltype(&regs_kernel<Arithmetic, 0>);
  const auto pick = [layout]<int... Layouts>(std::integer_sequence<int, Layouts...>) {
    Kernel kernel = nullptr;
    ((kernel = layout == Layouts ? regs_kernel<Arithmetic, Layouts> : kernel), ...);
    return kernel;
  };
  const Kernel kernel =
      pick(std::integer_sequence<int, 0, kStrided, kRowTwiddles, kPairLike, kIntegerRows, kPairLike | kIntegerRows,
                                 kPairLike | kMixedRows, kPairLike | kMixedRows | kWideFirst,
                                 kPairLike | kRuntimeStep, kPairLike | kMixedRows | kRuntimeStep>{});
  if (kernel == nullptr) throw std::invalid_argument("cuda_pass_overlap: no register kernel of layout " +
                                                     std::to_string(layout));
  return kernel;
}

struct Variant {
  int stages;      // 0: regs
  int min_blocks;  // the bulk kernel's launch bound (blocks an SM)
  bool arithmetic;
  int layout = 0;  // the register kernel's layout bits, or kSplitSerial / kSplitConcurrent
};

class PassOverlap {
 public:
  PassOverlap() : data_(kRows * kN), twiddles_(kTwiddles), wide_twiddles_(kTwiddles) {
    std::vector<double> w(kTwiddles);
    for (std::size_t i = 0; i < kTwiddles; ++i) {
      w[i] = static_cast<double>((u64{1234567} * (i + 3) * (i + 7)) % kModulus);
    }
    FHE_CUDA_CHECK(cudaMemcpy(twiddles_.data(), w.data(), twiddles_.bytes(), cudaMemcpyHostToDevice));
    std::vector<Twiddle> wide(kTwiddles);  // w below the 60-bit modulus and its Shoup companion
    for (std::size_t i = 0; i < kTwiddles; ++i) {
      const u64 value = (i * 0x9e3779b97f4a7c15ULL) % kWideModulus;
      wide[i] = {value, static_cast<u64>((static_cast<unsigned __int128>(value) << 64) / kWideModulus)};
    }
    FHE_CUDA_CHECK(cudaMemcpy(wide_twiddles_.data(), wide.data(), wide_twiddles_.bytes(), cudaMemcpyHostToDevice));
    int sms = 0;
    FHE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    sms_ = sms;
  }

  // The words one launch leaves from the fill.
  std::vector<u64> result(const Variant& v) {
    fill<<<1024, kThreads, 0, stream_.get()>>>(data_.data(), data_.size());
    launch(v);
    stream_.synchronize();
    std::vector<u64> out(data_.size());
    FHE_CUDA_CHECK(cudaMemcpy(out.data(), data_.data(), data_.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }

  double time_ms(const Variant& v) {
    flush_.run(stream_.get());
    start_.record(stream_.get());
    launch(v);
    stop_.record(stream_.get());
    stop_.synchronize();
    return stop_.elapsed_ms_since(start_);
  }

  int blocks_per_sm(const Variant& v) {
    if (v.stages > 0) return bulk_blocks_per_sm(v);
    const int layout = split(v.layout) ? kPairLike : v.layout;
    return v.arithmetic ? occupancy_of(regs_kernel_of<true>(layout), kThreads, 0)
                        : occupancy_of(regs_kernel_of<false>(layout), kThreads, 0);
  }

 private:
  template <typename Kernel>
  static int occupancy_of(Kernel kernel, int threads, std::size_t shared) {
    int blocks = 0;
    FHE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return blocks;
  }

  template <int Stages, int MinBlocks, bool Arithmetic>
  int bulk_launch(bool run) {
    const std::size_t shared = std::size_t{Stages} * kTileBytes;
    auto* kernel = bulk_kernel<Stages, MinBlocks, Arithmetic>;
    FHE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)));
    const int blocks = occupancy_of(kernel, kThreads + 32, shared);
    if (run) {
      kernel<<<blocks * sms_, kThreads + 32, shared, stream_.get()>>>(data_.data(), twiddles_.data());
      FHE_CUDA_CHECK(cudaGetLastError());
    }
    return blocks;
  }

  template <bool Arithmetic>
  int bulk_dispatch(const Variant& v, bool run) {
    if (v.stages == 2 && v.min_blocks == 3) return bulk_launch<2, 3, Arithmetic>(run);
    if (v.stages == 2) return bulk_launch<2, 2, Arithmetic>(run);
    return v.stages == 3 ? bulk_launch<3, 2, Arithmetic>(run) : bulk_launch<4, 1, Arithmetic>(run);
  }

  int bulk_blocks_per_sm(const Variant& v) {
    return v.arithmetic ? bulk_dispatch<true>(v, false) : bulk_dispatch<false>(v, false);
  }

  void launch(const Variant& v) {
    if (v.stages > 0) {
      v.arithmetic ? bulk_dispatch<true>(v, true) : bulk_dispatch<false>(v, true);
      return;
    }
    if (v.arithmetic) {
      regs_launch<true>(v.layout);
    } else {
      regs_launch<false>(v.layout);
    }
    FHE_CUDA_CHECK(cudaGetLastError());
  }

  static bool split(int layout) { return layout == kSplitSerial || layout == kSplitConcurrent; }

  template <bool Arithmetic>
  void regs_launch(int layout) {
    if (split(layout)) return split_launch<Arithmetic>(layout == kSplitConcurrent);
    const unsigned step_log = (layout & kStrided) ? kStridedStepLog : 8;
    regs_kernel_of<Arithmetic>(layout)<<<kTiles, kThreads, 0, stream_.get()>>>(
        data_.data(), twiddles_.data(), wide_twiddles_.data(), Rows::all, step_log);
  }

  // The FP64 rows and the 60-bit rows as two kernels, one after the other
  // or side by side on a second stream.
  template <bool Arithmetic>
  void split_launch(bool concurrent) {
    const cudaStream_t wide_stream = concurrent ? side_.get() : stream_.get();
    if (concurrent) fork_.order(stream_.get(), side_.get());
    regs_kernel<Arithmetic, kPairLike | kIntegerRows><<<kTiles, kThreads, 0, wide_stream>>>(
        data_.data(), twiddles_.data(), wide_twiddles_.data(), Rows::sevenths, kStridedStepLog);
    regs_kernel<Arithmetic, kPairLike><<<kTiles, kThreads, 0, stream_.get()>>>(
        data_.data(), twiddles_.data(), wide_twiddles_.data(), Rows::others, kStridedStepLog);
    if (concurrent) join_.order(side_.get(), stream_.get());
  }

  DeviceBuffer<u64> data_;
  DeviceBuffer<double> twiddles_;
  DeviceBuffer<Twiddle> wide_twiddles_;
  int sms_ = 0;
  fhe::cuda::Stream stream_, side_;
  fhe::cuda::OrderEvent fork_, join_;
  fhe::cuda::Event start_, stop_;
  fhelium_bench::L2Flush flush_;
};

void bench_pass_overlap(benchmark::State& state, Variant v) {
  static std::unique_ptr<PassOverlap> bench;
  if (!bench) bench = std::make_unique<PassOverlap>();
  if (v.stages > 0 && bench->result(v) != bench->result({0, 0, v.arithmetic})) {
    state.SkipWithError("the bulk-copy kernel's words differ from the register kernel's");
    return;
  }
  bench->time_ms(v);  // warm-up
  for (auto _ : state) state.SetIterationTime(bench->time_ms(v) / 1e3);
  state.counters["blocks_per_sm"] = bench->blocks_per_sm(v);
  state.counters["bytes"] = 2.0 * kRows * kN * sizeof(u64);
  state.counters["TB_per_s"] = benchmark::Counter(2.0 * kRows * kN * sizeof(u64) * 1e-12,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

int register_pass_overlap() {
  if (fhe::query_gpus().gpus.empty()) return 0;  // CPU-only machine: nothing to time
  // bulkS-B: S buffers a block, launch-bounded to B blocks an SM (bulk2-3 spills 68 bytes);
  // regs-*: the register kernel's layouts (strided words, per-row twiddles, 60-bit rows: all or mixed;
  // -rtstep: the stride a kernel argument; the mixed -rtstep kernel spills 8 bytes at 80 registers).
  struct Shape {
    std::string name;
    int stages, blocks, layout;
  };
  const std::vector<Shape> shapes = {{"regs", 0, 0, 0},
                                     {"regs-strided", 0, 0, kStrided},
                                     {"regs-rowtw", 0, 0, kRowTwiddles},
                                     {"regs-strided-rowtw", 0, 0, kStrided | kRowTwiddles},
                                     {"regs-int", 0, 0, kIntegerRows},
                                     {"regs-strided-rowtw-int", 0, 0, kStrided | kRowTwiddles | kIntegerRows},
                                     {"regs-strided-rowtw-mixed", 0, 0, kStrided | kRowTwiddles | kMixedRows},
                                     {"regs-strided-rowtw-mixed-widefirst", 0, 0,
                                      kStrided | kRowTwiddles | kMixedRows | kWideFirst},
                                     {"regs-strided-rowtw-split", 0, 0, kSplitSerial},
                                     {"regs-strided-rowtw-split-streams", 0, 0, kSplitConcurrent},
                                     {"regs-strided-rowtw-rtstep", 0, 0, kStrided | kRowTwiddles | kRuntimeStep},
                                     {"regs-strided-rowtw-mixed-rtstep", 0, 0,
                                      kStrided | kRowTwiddles | kMixedRows | kRuntimeStep},
                                     {"bulk2-2", 2, 2, 0},
                                     {"bulk2-3", 2, 3, 0},
                                     {"bulk3-2", 3, 2, 0},
                                     {"bulk4-1", 4, 1, 0}};
  for (const bool arithmetic : {false, true}) {
    for (const Shape& shape : shapes) {
      const std::string name = "cuda_pass_overlap/" + shape.name + (arithmetic ? "/pair" : "/move");
      const Variant variant{shape.stages, shape.blocks, arithmetic, shape.layout};
      benchmark::RegisterBenchmark(name.c_str(), bench_pass_overlap, variant)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(kIterations);
    }
  }
  return 0;
}

const int registered = register_pass_overlap();

}  // namespace
