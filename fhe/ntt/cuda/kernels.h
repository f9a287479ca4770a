// Launchers of the CUDA NTT kernels and the queries `describe` makes about
// them (registers, shared memory, occupancy). Each kernel file instantiates
// its kernels for 64- and 32-bit arithmetic; the plan picks one per pass.
// Launchers only enqueue and return the launch status.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/launch_plan.h"

namespace fhe::ntt::gpu {

struct KernelResources {
  std::string name;
  int registers_per_thread = 0;
  std::size_t static_shared_bytes = 0;
  int max_blocks_per_sm = 0;
};

// Fills registers, static shared memory and resident blocks per SM of `kernel`
// for the launch shape; throws DeviceError on failure.
KernelResources query_kernel_resources(const void* kernel, std::string name,
                                       const LaunchShape& shape);

inline dim3 grid_of(const LaunchShape& shape) { return dim3(shape.grid_x, shape.grid_y, 1); }

// Launches with programmatic stream serialization, so a kernel's blocks may
// start (and load their constants) while the previous kernel drains; each
// kernel waits (griddepcontrol.wait) before reading the data. Allowed in
// stream capture: the graph gets programmatic edges.
template <typename... Params, typename... Args>
cudaError_t launch_overlapped(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                              cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

template <typename Args>
cudaError_t launch_overlapped(void (*kernel)(Args), const LaunchShape& shape, cudaStream_t stream,
                              const Args& args) {
  return launch_overlapped(kernel, grid_of(shape), dim3(shape.block, 1, 1), shape.dynamic_shared_bytes, stream,
                           args);
}

template <typename Word>
cudaError_t launch_global_pass(const PassArgs<Word>& args, bool forward, const LaunchShape& shape,
                        cudaStream_t stream);
template <typename Word>
KernelResources global_pass_resources(int stage_count, bool forward, const LaunchShape& shape);

template <typename Word>
cudaError_t launch_shared_region(const PassArgs<Word>& args, bool forward, const LaunchShape& shape,
                          cudaStream_t stream);
template <typename Word>
KernelResources shared_region_resources(int stage_count, bool consecutive, bool forward, const LaunchShape& shape);

// A global pass and the shared region in one launch (runs_pass_with_region,
// pass_region_shape): `pass` and `region` are the two launches' arguments.
template <typename Word>
cudaError_t launch_pass_region(const PassArgs<Word>& pass, const PassArgs<Word>& region, bool forward,
                               const LaunchShape& shape, cudaStream_t stream);
template <typename Word>
KernelResources pass_region_resources(int pass_stages, bool consecutive, bool forward, const LaunchShape& shape);

// Two global passes in one launch (runs_pass_pair, pass_pair_shape):
// `first` and `second` are the two launches' arguments in execution order.
template <typename Word>
cudaError_t launch_pass_pair(const PassArgs<Word>& first, const PassArgs<Word>& second, bool forward,
                             const LaunchShape& shape, cudaStream_t stream);
// The kernel a pair runs: the constant-log-N one where constant_pass_shape
// holds for log_n and the lower pass's first stage.
template <typename Word>
KernelResources pass_pair_resources(int stages, bool forward, std::uint32_t log_n, std::uint32_t lower_first_stage,
                                    const LaunchShape& shape);
// A forward's three or four global passes in one launch (pass_group_shape,
// pass_pair_shape): kPassGroupShapes[shape], the passes in stage order.
template <typename Word>
cudaError_t launch_pass_group(const PassGroupArgs<Word>& group, int shape, const LaunchShape& launch_shape,
                              cudaStream_t stream);

template <typename Word>
cudaError_t launch_indexed_stage(const IndexedStageArgs<Word>& args, bool forward,
                          const LaunchShape& shape, cudaStream_t stream);
template <typename Word>
KernelResources indexed_stage_resources(bool forward, const LaunchShape& shape);

// "u64" or "u32", for kernel names.
template <typename Word>
constexpr const char* word_tag() {
  return sizeof(Word) == 8 ? "u64" : "u32";
}

}  // namespace fhe::ntt::gpu
