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

// forward_batch(data, rows, batch) of a CUDA plan whose forward transform
// ends in the shared-memory region, minus that last pass: every earlier pass
// is enqueued on `stream` and the region's arguments are returned for the
// caller's kernel to run. Enqueues nothing and returns nullopt for other
// plans (radix2_indexed has no region; CPU plans). With skip_starts (a
// device array, gpu::PassArgs::skip_starts), the passes may leave those
// rows of each block untransformed, and the region's arguments carry it.
// With `lift`, the transform's input is not `data` but lift's rows lifted
// to each row's prime (gpu::CentredLift): the first pass forms the words as
// it loads them, so nobody writes them untransformed; then the forward must
// also start with a global pass, else nullopt. With `leave_pass`, for a
// caller whose kernel runs pass_in_region_block (pass_region.cuh), the
// global pass before the region is left to it as well where the plan's own
// transform would run the two in one launch and the rows exceed the L2
// (gpu::leaves_pass_to_region_kernel): then ForwardRegion::pass_stages() is nonzero.
std::optional<gpu::ForwardRegion> forward_batch_before_region(const NttPlan& plan, std::uint64_t* data,
                                                              RowRange rows, std::size_t batch,
                                                              StreamHandle stream,
                                                              const std::uint32_t* skip_starts = nullptr,
                                                              const gpu::CentredLift* lift = nullptr,
                                                              bool leave_pass = false);

// inverse_batch(data, rows, batch) of `source`'s words (not overlapping
// `data`) with the result in `data`, `source` unchanged, when the plan's
// inverse starts with the shared-memory region (every CUDA backend but
// radix2_indexed): that first launch reads `source`, so the caller needs no
// copy. Batch block b's rows.count rows start b * source_batch_words words
// into `source` (0: rows.count * N, the layout of `data`; e.g. a strip of
// rows of every ciphertext part). Returns false and enqueues nothing otherwise.
bool inverse_batch_out_of_place(const NttPlan& plan, const std::uint64_t* source, std::uint64_t* data,
                                RowRange rows, std::size_t batch, StreamHandle stream,
                                std::size_t source_batch_words = 0);

// forward_batch(data, rows, batch) whose passes may leave the rows of
// skip_starts untransformed (their words are unspecified afterwards): the
// evaluator's ModUp, which writes the digits' own rows itself. Other plans
// transform every row. With `lift` (a CUDA plan whose forward starts with a
// global pass, else InvalidArgument), the lift's batch blocks take their
// input from its rows, as in forward_batch_before_region.
void forward_batch_skipping(const NttPlan& plan, std::uint64_t* data, RowRange rows, std::size_t batch,
                            const std::uint32_t* skip_starts, StreamHandle stream,
                            const gpu::CentredLift* lift = nullptr);

// Whether the plan's forward of rows x batch (before_region: without its
// region, forward_batch_before_region) runs in the same launches with its
// input lifted (gpu::lift_keeps_launches): where a caller can lift some
// batch blocks instead of converting them, for nothing more than the lift.
// False for plans that cannot lift (radix2_indexed, CPU plans).
bool forward_lift_keeps_launches(const NttPlan& plan, RowRange rows, std::size_t batch, bool before_region);

}  // namespace fhe::ntt
