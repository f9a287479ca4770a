// Entry points of the CUDA NTT backends, compiled only when CUDA is built.
// Declared in a CUDA-free header so the registry can call them.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "fhe/ntt/backend.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::ntt {

// Builds a CUDA plan on device `device_index`: tables uploaded once.
// Throws DeviceError when the device is absent or too small.
std::unique_ptr<NttPlan> make_cuda_plan(const BackendInfo& backend, NttSchedule schedule,
                                        int device_index, std::span<const std::uint64_t> moduli,
                                        WordType word);

}  // namespace fhe::ntt

namespace fhe::ntt {

// Uploads `data` (rows.count x N words), runs the plan's forward or inverse
// transform on the plan's device and downloads the result (synchronous).
void cuda_transform_host_data(const NttPlan& plan, std::vector<std::uint64_t>& data,
                              RowRange rows, bool forward);

// The first pass of forward_batch(data, rows, batch) of a CUDA plan, for a
// kernel that computes that pass's input words itself and runs the pass on
// them (the evaluator's ModUp conversion): its arguments, when it is a
// global pass with later passes after it and the launch is large enough
// for the unsplit thread layout (gpu::LaunchShape::split false). Enqueues
// nothing; nullopt otherwise (radix2_indexed, CPU plans, small launches).
// The caller then passes first_launch = 1 to the functions below.
std::optional<gpu::ForwardPass> forward_batch_first_pass(const NttPlan& plan, std::uint64_t* data, RowRange rows,
                                                         std::size_t batch,
                                                         const std::uint32_t* skip_starts = nullptr);

// forward_batch(data, rows, batch) of a CUDA plan whose forward transform
// ends in the shared-memory region, minus that last pass: every earlier pass
// from `first_launch` on is enqueued on `stream` and the region's arguments
// are returned for the caller's kernel to run. Enqueues nothing and returns
// nullopt for other plans (radix2_indexed has no region; CPU plans). With
// skip_starts (a device array, gpu::PassArgs::skip_starts), the passes may
// leave those rows of each block untransformed, and the region's arguments
// carry it.
std::optional<gpu::ForwardRegion> forward_batch_before_region(const NttPlan& plan, std::uint64_t* data,
                                                              RowRange rows, std::size_t batch,
                                                              StreamHandle stream,
                                                              const std::uint32_t* skip_starts = nullptr,
                                                              std::size_t first_launch = 0);

// forward_batch(data, rows, batch) from pass `first_launch` on, whose passes
// may leave the rows of skip_starts untransformed (their words are
// unspecified afterwards): the evaluator's ModUp, which writes the digits'
// own rows itself. Other plans transform every row (first_launch must be 0).
void forward_batch_skipping(const NttPlan& plan, std::uint64_t* data, RowRange rows, std::size_t batch,
                            const std::uint32_t* skip_starts, StreamHandle stream, std::size_t first_launch = 0);

}  // namespace fhe::ntt
