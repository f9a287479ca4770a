// The global fused-pass kernel (compact groups and strict radix digits),
// instantiated for G = 1..4 stages, both directions and both word types.
#include "fhe/ntt/cuda/global_pass.cuh"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::ntt::gpu {
namespace {

template <typename Word, int G, bool Forward, bool Split, int MinBlocks, bool Lifted>
__global__ void __launch_bounds__(kMaxBlockThreads, MinBlocks) ntt_global_pass(PassArgs<Word> args) {
  allow_next_kernel_launch();
  const std::uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t row = visit_index(args, blockIdx.y, gridDim.y);
  if constexpr (kGlobalPassLayout<Word, G, Split>.paired) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    Word* mailbox = reinterpret_cast<Word*>(shared_bytes);
    PairedPassState<Word, G> state;
    paired_pass_send<Word, G, Forward, Lifted>(args, row, item, state, mailbox, blockDim.x, threadIdx.x);
    __syncthreads();
    paired_pass_receive<Word, G, Forward>(args, state, mailbox, blockDim.x, threadIdx.x);
  } else {
    if (item >= global_pass_items_per_row<Word, G, Split>(args.log_n)) return;
    global_pass_item<Word, G, Forward, Split, Lifted>(args, row, item);
  }
}

template <typename Word>
using GlobalPassKernel = void (*)(PassArgs<Word>);

// Split launches (LaunchShape::split, which are latency-shaped: the latency
// cap), throughput launches and the other latency launches. A lifted first
// pass (a forward's, PassArgs::lift) has its own kernels, the split one and
// one at the latency cap (at the throughput cap it fits 80 registers since
// session 29, but the rescale moved within its bench's noise: not taken).
template <typename Word, int G, bool Forward>
GlobalPassKernel<Word> select_cap(const LaunchShape& shape, bool lifted) {
  constexpr int latency = kMinBlocksPerSm, many = kThroughputMinBlocksPerSm;
  if constexpr (Forward) {
    if (lifted) {
      return shape.split ? ntt_global_pass<Word, G, true, true, latency, true>
                         : ntt_global_pass<Word, G, true, false, latency, true>;
    }
  }
  if (shape.split) return ntt_global_pass<Word, G, Forward, true, latency, false>;
  return shape.throughput ? ntt_global_pass<Word, G, Forward, false, many, false>
                          : ntt_global_pass<Word, G, Forward, false, latency, false>;
}

template <typename Word, bool Forward>
GlobalPassKernel<Word> select_direction(int stage_count, const LaunchShape& shape, bool lifted) {
  switch (stage_count) {
    case 1: return select_cap<Word, 1, Forward>(shape, lifted);
    case 2: return select_cap<Word, 2, Forward>(shape, lifted);
    case 3: return select_cap<Word, 3, Forward>(shape, lifted);
    case 4: return select_cap<Word, 4, Forward>(shape, lifted);
  }
  throw InvalidArgument("global NTT pass of " + std::to_string(stage_count) +
                        " stages (the kernels fuse 1 to 4)");
}

template <typename Word>
GlobalPassKernel<Word> select_kernel(int stage_count, bool forward, const LaunchShape& shape, bool lifted) {
  if (lifted && !forward) throw InvalidArgument("an inverse NTT pass cannot lift its input");
  return forward ? select_direction<Word, true>(stage_count, shape, lifted)
                 : select_direction<Word, false>(stage_count, shape, lifted);
}

}  // namespace

template <typename Word>
cudaError_t launch_global_pass(const PassArgs<Word>& args, bool forward, const LaunchShape& shape,
                               cudaStream_t stream) {
  return launch_overlapped(
      select_kernel<Word>(static_cast<int>(args.stage_count), forward, shape, args.lift.rows != nullptr), shape,
      stream, args);
}

template <typename Word>
KernelResources global_pass_resources(int stage_count, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_global_pass<") + word_tag<Word>() + ",g" +
                           std::to_string(stage_count) + (forward ? ",forward" : ",inverse") +
                           (shape.throughput ? ",throughput>" : shape.split ? ",latency,split>" : ",latency>");
  return query_kernel_resources(
      reinterpret_cast<const void*>(select_kernel<Word>(stage_count, forward, shape, false)), name, shape);
}

template cudaError_t launch_global_pass(const PassArgs<std::uint64_t>&, bool, const LaunchShape&, cudaStream_t);
template cudaError_t launch_global_pass(const PassArgs<std::uint32_t>&, bool, const LaunchShape&, cudaStream_t);
template KernelResources global_pass_resources<std::uint64_t>(int, bool, const LaunchShape&);
template KernelResources global_pass_resources<std::uint32_t>(int, bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
