// The pass-pair kernels (pass_pair.cuh): two global passes of G = 2..4
// stages in one launch, per direction (and lifted forward) and word type,
// and the forward pass groups of kPassGroupShapes (lifted or not), at the
// throughput register cap (the plan groups only launches that fill the
// GPU: runs_pass_pair, pass_group_shape).
#include <string>
#include <utility>

#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/pass_pair.cuh"

namespace fhe::ntt::gpu {
namespace {

// `first` and `second`: the two passes' arguments in execution order (the
// forward's lower pass first, the inverse's upper pass first). A block
// barrier between the two phases, as in the pass-region kernel. Lifted: the
// forward's first pass lifts its input (PassArgs::lift), its own kernels so
// the others compile as if it did not exist. LogN: kConstantPassLogN for the
// launches of constant_pass_shape, else 0.
template <typename Word, bool Forward, int G, bool Lifted = false, std::uint32_t LogN = 0>
__global__ void __launch_bounds__(kPairBlockThreads, kThroughputMinBlocksPerSm)
    ntt_pass_pair(PassArgs<Word> first, PassArgs<Word> second) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t row = visit_index(first, blockIdx.y, gridDim.y);
  if (skipped_row(first, row)) return;
  const PassPairPlace place = locate_pass_block<2 * G, LogN>(
      first.log_n, pair_lower_first_stage(first, second, Forward), row, blockIdx.x);
  pass_pair_phase<Word, G, Forward, true, Lifted, LogN>(first, shared, place, threadIdx.x);
  __syncthreads();
  pass_pair_phase<Word, G, Forward, false, false, LogN>(second, shared, place, threadIdx.x);
}

// A forward pass group's phases in order, a block barrier between each two.
template <typename Word, int Shape, std::uint32_t LogN, bool Lifted, int... P>
__device__ void run_group_phases(const PassGroupArgs<Word>& group, Word* shared, const PassPairPlace& place,
                                 std::integer_sequence<int, P...>) {
  (
      [&] {
        if constexpr (P > 0) __syncthreads();
        pass_group_phase<Word, Shape, P, LogN, Lifted>(group.pass[P], shared, place, threadIdx.x);
      }(),
      ...);
}

// A forward pass group (pass_group_shape, kPassGroupShapes[Shape]); LogN as
// the pair's; Lifted: its first pass lifts its input, as the pair's.
template <typename Word, int Shape, std::uint32_t LogN, bool Lifted>
__global__ void __launch_bounds__(kPairBlockThreads, kThroughputMinBlocksPerSm)
    ntt_pass_group(const __grid_constant__ PassGroupArgs<Word> group) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const PassArgs<Word>& first = group.pass[0];
  const std::uint32_t row = visit_index(first, blockIdx.y, gridDim.y);
  if (skipped_row(first, row)) return;
  const PassPairPlace place =
      locate_pass_block<kPassGroupSpan<Shape>, LogN>(first.log_n, first.first_stage, row, blockIdx.x);
  run_group_phases<Word, Shape, LogN, Lifted>(group, shared, place,
                                              std::make_integer_sequence<int, kPassGroupShapes[Shape].count>{});
}

template <typename Word>
using PassGroupKernel = void (*)(PassGroupArgs<Word>);

template <typename Word, std::uint32_t LogN, bool Lifted, int... Shapes>
PassGroupKernel<Word> select_group(int shape, std::integer_sequence<int, Shapes...>) {
  PassGroupKernel<Word> kernel = nullptr;
  ((kernel = shape == Shapes ? ntt_pass_group<Word, Shapes, LogN, Lifted> : kernel), ...);
  if (!kernel) throw InvalidArgument("pass-group kernel of unknown shape " + std::to_string(shape));
  return kernel;
}

template <typename Word, bool Lifted>
PassGroupKernel<Word> group_kernel(int shape, bool constant) {
  constexpr auto shapes = std::make_integer_sequence<int, kPassGroupShapeCount>{};
  return constant ? select_group<Word, kConstantPassLogN, Lifted>(shape, shapes)
                  : select_group<Word, 0, Lifted>(shape, shapes);
}

template <typename Word>
PassGroupKernel<Word> group_kernel(int shape, bool constant, bool lifted) {
  return lifted ? group_kernel<Word, true>(shape, constant) : group_kernel<Word, false>(shape, constant);
}

template <typename Word>
using PassPairKernel = void (*)(PassArgs<Word>, PassArgs<Word>);

template <typename Word, bool Forward, bool Lifted, std::uint32_t LogN>
PassPairKernel<Word> select_stages(int stages) {
  switch (stages) {
    case 2: return ntt_pass_pair<Word, Forward, 2, Lifted, LogN>;
    case 3: return ntt_pass_pair<Word, Forward, 3, Lifted, LogN>;
    case 4: return ntt_pass_pair<Word, Forward, 4, Lifted, LogN>;
  }
  throw InvalidArgument("pass-pair kernel with passes of " + std::to_string(stages) +
                        " stages (the kernels pair passes of 2 to 4)");
}

template <typename Word, std::uint32_t LogN>
PassPairKernel<Word> select_kernel(int stages, bool forward, bool lifted) {
  if (lifted && !forward) throw InvalidArgument("an inverse NTT pass pair cannot lift its input");
  if (lifted) return select_stages<Word, true, true, LogN>(stages);
  return forward ? select_stages<Word, true, false, LogN>(stages) : select_stages<Word, false, false, LogN>(stages);
}

template <typename Word>
PassPairKernel<Word> select_kernel(int stages, bool forward, bool lifted, bool constant) {
  return constant ? select_kernel<Word, kConstantPassLogN>(stages, forward, lifted)
                  : select_kernel<Word, 0>(stages, forward, lifted);
}

}  // namespace

template <typename Word>
cudaError_t launch_pass_pair(const PassArgs<Word>& first, const PassArgs<Word>& second, bool forward,
                             const LaunchShape& shape, cudaStream_t stream) {
  const bool lifted = first.lift.rows != nullptr;
  const bool constant = constant_pass_shape(first.log_n, pair_lower_first_stage(first, second, forward));
  const auto kernel = select_kernel<Word>(static_cast<int>(first.stage_count), forward, lifted, constant);
  return launch_overlapped(kernel, grid_of(shape), dim3(shape.block, 1, 1), shape.dynamic_shared_bytes, stream, first,
                           second);
}

template <typename Word>
KernelResources pass_pair_resources(int stages, bool forward, std::uint32_t log_n, std::uint32_t lower_first_stage,
                                    const LaunchShape& shape) {
  const bool constant = constant_pass_shape(log_n, lower_first_stage);
  const std::string name = std::string("ntt_pass_pair<") + word_tag<Word>() + ",g" + std::to_string(stages) +
                           (forward ? ",forward" : ",inverse") +
                           (constant ? ",logN" + std::to_string(kConstantPassLogN) : std::string()) + ",throughput>";
  return query_kernel_resources(reinterpret_cast<const void*>(select_kernel<Word>(stages, forward, false, constant)),
                                name, shape);
}

template <typename Word>
cudaError_t launch_pass_group(const PassGroupArgs<Word>& group, int shape, const LaunchShape& launch_shape,
                              cudaStream_t stream) {
  const bool constant = constant_pass_shape(group.pass[0].log_n, group.pass[0].first_stage);
  const bool lifted = group.pass[0].lift.rows != nullptr;
  return launch_overlapped(group_kernel<Word>(shape, constant, lifted), grid_of(launch_shape),
                           dim3(launch_shape.block, 1, 1), launch_shape.dynamic_shared_bytes, stream, group);
}

template cudaError_t launch_pass_pair(const PassArgs<std::uint64_t>&, const PassArgs<std::uint64_t>&, bool,
                                      const LaunchShape&, cudaStream_t);
template cudaError_t launch_pass_pair(const PassArgs<std::uint32_t>&, const PassArgs<std::uint32_t>&, bool,
                                      const LaunchShape&, cudaStream_t);
template KernelResources pass_pair_resources<std::uint64_t>(int, bool, std::uint32_t, std::uint32_t,
                                                            const LaunchShape&);
template KernelResources pass_pair_resources<std::uint32_t>(int, bool, std::uint32_t, std::uint32_t,
                                                            const LaunchShape&);

template cudaError_t launch_pass_group(const PassGroupArgs<std::uint64_t>&, int, const LaunchShape&, cudaStream_t);
template cudaError_t launch_pass_group(const PassGroupArgs<std::uint32_t>&, int, const LaunchShape&, cudaStream_t);

}  // namespace fhe::ntt::gpu
