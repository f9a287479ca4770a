// cuda_transform_host_data: upload, transform and download on one stream of
// the plan's device (synchronous; for checks and tools, not timed paths).
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cuda/cuda_plans.h"

namespace fhe::ntt {

void cuda_transform_host_data(const NttPlan& plan, std::vector<std::uint64_t>& data,
                              RowRange rows, bool forward) {
  if (plan.device().kind != DeviceKind::cuda) {
    throw InvalidArgument("cuda_transform_host_data needs a CUDA plan, got " + plan.device().str());
  }
  const std::string context = std::string(plan.backend().name) + " on " + plan.device().str();
  fhe::cuda::DeviceGuard guard(plan.device().index);
  fhe::cuda::Stream stream;
  fhe::cuda::DeviceBuffer<std::uint64_t> buffer(data.size(), context);
  buffer.upload_async(data, stream.get());
  if (forward) {
    plan.forward(buffer.data(), rows, {stream.get()});
  } else {
    plan.inverse(buffer.data(), rows, {stream.get()});
  }
  buffer.download_async(data, stream.get());
  // Faults inside the kernels surface here.
  FHE_CUDA_CHECK(cudaStreamSynchronize(stream.get()), context);
}

}  // namespace fhe::ntt
