// The profiled transform. The input comes from random_rows (uniform in
// [0, q) per row), the same words `ntt verify` uses, so a profiled run
// works on what the backend is specified for.
#include "recommend/ntt_run_once.h"

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "recommend/transform_buffers.h"
#if FHELIUM_HAS_CUDA
#include <cuda_profiler_api.h>

#include "recommend/cuda_check.h"
#endif

namespace fhelium {

const fhe::ntt::BackendInfo& compatible_backend(const std::string& name, const fhe::Preset& preset) {
  const fhe::ntt::BackendInfo& backend = fhe::ntt::backend_info(name);
  const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
  if (!check.compatible)
    throw fhe::InvalidArgument("backend " + name + " is incompatible with preset " + preset.name + ": " +
                               check.reason);
  return backend;
}

bool parse_direction_is_forward(const std::string& direction) {
  if (direction == "forward") return true;
  if (direction == "inverse") return false;
  throw fhe::InvalidArgument("--direction must be 'forward' or 'inverse', not '" + direction + "'");
}

void run_transform_once_profiled(const RunOnceRequest& request) {
  const fhe::Preset& preset = fhe::preset_by_name(request.preset);
  const fhe::ntt::BackendInfo& backend = compatible_backend(request.backend, preset);
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, request.level);
  const bool forward = parse_direction_is_forward(request.direction);
  const fhe::DeviceSpec device = fhe::parse_device(request.device);
  if (device.kind != fhe::DeviceKind::cuda)
    throw fhe::InvalidArgument("a profiled transform runs on a CUDA device (cuda:N), not " + device.str());
  fhe::require_device(device);
#if FHELIUM_HAS_CUDA
  auto plan = fhe::ntt::make_plan(backend.name, device, preset.log_n, preset.qp_primes(), preset.word);
  TransformBuffers buffers(device, fhe::ntt::random_rows(*plan, rows, request.seed));
  auto transform = [&] {
    if (forward) plan->forward(buffers.work(), rows, buffers.stream());
    else plan->inverse(buffers.work(), rows, buffers.stream());
  };
  auto stream = static_cast<cudaStream_t>(buffers.stream().native);
  transform();  // warm-up: first-launch costs stay outside the range
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (warm-up)", device.index);
  buffers.restore();  // the profiled transform sees the same fully reduced input
  check_cuda(cudaProfilerStart(), "cudaProfilerStart", device.index);
  transform();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (profiled transform)", device.index);
  check_cuda(cudaProfilerStop(), "cudaProfilerStop", device.index);
#else
  (void)backend;
  (void)rows;
  (void)forward;
#endif
}

}  // namespace fhelium
