// The ModUp's basis conversion fused with the batched forward transform's
// first pass (conversion_pass.cuh): launcher, and the shape it takes.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/device_conversion.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::cuda {

// Targets a block converts and transforms after lifting its sources once:
// four slices of a digit's 35 or 36 targets at level 0 of the default
// preset (1280 blocks of 128 threads, about three rounds of 3 blocks an SM).
inline constexpr int kConversionPassTargetsPerSlice = 9;

// Threads of a block: 128, halved (down to 32) while their lift slots would
// exceed kConversionPassMaxSharedBytes.
inline constexpr unsigned kConversionPassMaxThreads = 128;
inline constexpr std::size_t kConversionPassMaxSharedBytes = 64 * 1024;

// Converts digit d's source rows (source + conversions[d].source_offset_rows
// rows, coefficient form) to its targets and runs `first_pass` (from
// ntt::forward_batch_first_pass over digits x extended rows) on them, for
// the `digits` conversions of the device array `conversions`. max_targets
// and max_sources bound every digit's counts. The digits' own rows are left
// alone (the pass's skip_starts rows). The caller then runs the later passes
// (first_launch = 1).
void launch_conversion_pass(const ntt::gpu::ForwardPass& first_pass, const DeviceConversion* conversions,
                            const std::uint64_t* source, int digits, int max_targets, int max_sources,
                            cudaStream_t stream);

}  // namespace fhe::cuda
