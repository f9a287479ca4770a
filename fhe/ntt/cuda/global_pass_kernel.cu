// The global fused-pass kernel (compact groups and strict radix digits),
// instantiated for G = 1..4 stages, both directions and both word types.
#include "fhe/ntt/cuda/global_pass.cuh"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::ntt::gpu {
namespace {

// SkipTest: the kernel tests PassArgs::skip_starts. Forward launches with
// rows to skip (the ModUp) get it and every other forward launch the kernel
// without it: with the test the one-row forward took longer (session 9).
// The inverse kernels always carry it, although no inverse skips rows: with
// it ptxas allocates the 64-bit 4-stage inverse without the 56-byte spill
// it had, and the 39-row inverse took 5 % less time on the H200 (session 9).
template <typename Word, int G, bool Forward, int MinBlocks, bool SkipTest>
__global__ void __launch_bounds__(kMaxBlockThreads, MinBlocks) ntt_global_pass(PassArgs<Word> args) {
  allow_next_kernel_launch();
  const std::uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
  if (item >= global_pass_items_per_row<Word, G>(args.log_n)) return;
  if constexpr (SkipTest) {
    if (skipped_row(args, blockIdx.y)) return;
  }
  global_pass_item<Word, G, Forward>(args, blockIdx.y, item);
}

template <typename Word>
using GlobalPassKernel = void (*)(PassArgs<Word>);

template <typename Word, int G, bool Forward, bool SkipTest>
GlobalPassKernel<Word> select_cap(bool throughput) {
  constexpr int latency = global_pass_min_blocks<Word, G, Forward>(false);
  constexpr int many = global_pass_min_blocks<Word, G, Forward>(true);
  return throughput ? ntt_global_pass<Word, G, Forward, many, SkipTest>
                    : ntt_global_pass<Word, G, Forward, latency, SkipTest>;
}

template <typename Word, int G, bool Forward>
GlobalPassKernel<Word> select_test(bool throughput, bool may_skip) {
  if constexpr (Forward) {
    return may_skip ? select_cap<Word, G, true, true>(throughput) : select_cap<Word, G, true, false>(throughput);
  } else {
    return select_cap<Word, G, false, true>(throughput);
  }
}

template <typename Word, bool Forward>
GlobalPassKernel<Word> select_direction(int stage_count, bool throughput, bool may_skip) {
  switch (stage_count) {
    case 1: return select_test<Word, 1, Forward>(throughput, may_skip);
    case 2: return select_test<Word, 2, Forward>(throughput, may_skip);
    case 3: return select_test<Word, 3, Forward>(throughput, may_skip);
    case 4: return select_test<Word, 4, Forward>(throughput, may_skip);
  }
  throw InvalidArgument("global NTT pass of " + std::to_string(stage_count) +
                        " stages (the kernels fuse 1 to 4)");
}

template <typename Word>
GlobalPassKernel<Word> select_kernel(int stage_count, bool forward, bool throughput, bool may_skip) {
  if (may_skip && !forward) throw InvalidArgument("an inverse NTT pass with rows to skip");
  return forward ? select_direction<Word, true>(stage_count, throughput, may_skip)
                 : select_direction<Word, false>(stage_count, throughput, false);
}

}  // namespace

template <typename Word>
cudaError_t launch_global_pass(const PassArgs<Word>& args, bool forward, const LaunchShape& shape,
                               cudaStream_t stream) {
  return launch_overlapped(select_kernel<Word>(static_cast<int>(args.stage_count), forward, shape.throughput,
                                               args.skip_starts != nullptr),
                           shape, stream, args);
}

template <typename Word>
KernelResources global_pass_resources(int stage_count, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_global_pass<") + word_tag<Word>() + ",g" +
                           std::to_string(stage_count) + (forward ? ",forward" : ",inverse") +
                           (shape.throughput ? ",throughput>" : ",latency>");
  return query_kernel_resources(
      reinterpret_cast<const void*>(select_kernel<Word>(stage_count, forward, shape.throughput, false)), name,
      shape);
}

template cudaError_t launch_global_pass(const PassArgs<std::uint64_t>&, bool, const LaunchShape&, cudaStream_t);
template cudaError_t launch_global_pass(const PassArgs<std::uint32_t>&, bool, const LaunchShape&, cudaStream_t);
template KernelResources global_pass_resources<std::uint64_t>(int, bool, const LaunchShape&);
template KernelResources global_pass_resources<std::uint32_t>(int, bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
