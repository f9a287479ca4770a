// The pass-pair kernels (pass_pair.cuh): two global passes of G = 2..4
// stages in one launch, per direction (and lifted forward) and word type,
// and the forward triple of 3, 3 and 2 stages, at the throughput register
// cap (the plan groups only launches that fill the GPU: runs_pass_pair,
// runs_pass_triple).
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/pass_pair.cuh"

namespace fhe::ntt::gpu {
namespace {

// `first` and `second`: the two passes' arguments in execution order (the
// forward's lower pass first, the inverse's upper pass first). A block
// barrier between the two phases, as in the pass-region kernel. Lifted: the
// forward's first pass lifts its input (PassArgs::lift), its own kernels so
// the others compile as if it did not exist.
template <typename Word, bool Forward, int G, bool Lifted = false>
__global__ void __launch_bounds__(kPairBlockThreads, kThroughputMinBlocksPerSm)
    ntt_pass_pair(PassArgs<Word> first, PassArgs<Word> second) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t row = visit_index(first, blockIdx.y, gridDim.y);
  if (skipped_row(first, row)) return;
  const std::uint32_t lower_first_stage = Forward ? first.first_stage : second.first_stage;
  const PassPairPlace place = locate_pass_block<2 * G>(first.log_n, lower_first_stage, row, blockIdx.x);
  pass_pair_phase<Word, G, Forward, true, Lifted>(first, shared, place, threadIdx.x);
  __syncthreads();
  pass_pair_phase<Word, G, Forward, false>(second, shared, place, threadIdx.x);
}

// The forward triple (runs_pass_triple): three phases, a block barrier
// after each of the first two.
template <typename Word>
__global__ void __launch_bounds__(kPairBlockThreads, kThroughputMinBlocksPerSm)
    ntt_pass_triple(PassArgs<Word> first, PassArgs<Word> second, PassArgs<Word> third) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t row = visit_index(first, blockIdx.y, gridDim.y);
  if (skipped_row(first, row)) return;
  const PassPairPlace place = locate_pass_block<kTripleSpan>(first.log_n, first.first_stage, row, blockIdx.x);
  pass_triple_phase<Word, 0>(first, shared, place, threadIdx.x);
  __syncthreads();
  pass_triple_phase<Word, 1>(second, shared, place, threadIdx.x);
  __syncthreads();
  pass_triple_phase<Word, 2>(third, shared, place, threadIdx.x);
}

template <typename Word>
using PassPairKernel = void (*)(PassArgs<Word>, PassArgs<Word>);

template <typename Word, bool Forward, bool Lifted>
PassPairKernel<Word> select_stages(int stages) {
  switch (stages) {
    case 2: return ntt_pass_pair<Word, Forward, 2, Lifted>;
    case 3: return ntt_pass_pair<Word, Forward, 3, Lifted>;
    case 4: return ntt_pass_pair<Word, Forward, 4, Lifted>;
  }
  throw InvalidArgument("pass-pair kernel with passes of " + std::to_string(stages) +
                        " stages (the kernels pair passes of 2 to 4)");
}

template <typename Word>
PassPairKernel<Word> select_kernel(int stages, bool forward, bool lifted = false) {
  if (lifted && !forward) throw InvalidArgument("an inverse NTT pass pair cannot lift its input");
  if (lifted) return select_stages<Word, true, true>(stages);
  return forward ? select_stages<Word, true, false>(stages) : select_stages<Word, false, false>(stages);
}

}  // namespace

template <typename Word>
cudaError_t launch_pass_pair(const PassArgs<Word>& first, const PassArgs<Word>& second, bool forward,
                             const LaunchShape& shape, cudaStream_t stream) {
  const bool lifted = first.lift.rows != nullptr;
  return launch_overlapped(select_kernel<Word>(static_cast<int>(first.stage_count), forward, lifted), grid_of(shape),
                           dim3(shape.block, 1, 1), shape.dynamic_shared_bytes, stream, first, second);
}

template <typename Word>
KernelResources pass_pair_resources(int stages, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_pass_pair<") + word_tag<Word>() + ",g" + std::to_string(stages) +
                           (forward ? ",forward" : ",inverse") + ",throughput>";
  return query_kernel_resources(reinterpret_cast<const void*>(select_kernel<Word>(stages, forward)), name, shape);
}

template <typename Word>
cudaError_t launch_pass_triple(const PassArgs<Word>& first, const PassArgs<Word>& second,
                               const PassArgs<Word>& third, const LaunchShape& shape, cudaStream_t stream) {
  return launch_overlapped(ntt_pass_triple<Word>, grid_of(shape), dim3(shape.block, 1, 1), shape.dynamic_shared_bytes,
                           stream, first, second, third);
}

template cudaError_t launch_pass_pair(const PassArgs<std::uint64_t>&, const PassArgs<std::uint64_t>&, bool,
                                      const LaunchShape&, cudaStream_t);
template cudaError_t launch_pass_pair(const PassArgs<std::uint32_t>&, const PassArgs<std::uint32_t>&, bool,
                                      const LaunchShape&, cudaStream_t);
template KernelResources pass_pair_resources<std::uint64_t>(int, bool, const LaunchShape&);
template KernelResources pass_pair_resources<std::uint32_t>(int, bool, const LaunchShape&);

template cudaError_t launch_pass_triple(const PassArgs<std::uint64_t>&, const PassArgs<std::uint64_t>&,
                                        const PassArgs<std::uint64_t>&, const LaunchShape&, cudaStream_t);
template cudaError_t launch_pass_triple(const PassArgs<std::uint32_t>&, const PassArgs<std::uint32_t>&,
                                        const PassArgs<std::uint32_t>&, const LaunchShape&, cudaStream_t);

}  // namespace fhe::ntt::gpu
