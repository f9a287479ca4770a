// Host or device buffers of the kernel suite.
#include "recommend/transform_buffers.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "recommend/cuda_check.h"

namespace fhelium {

TransformBuffers::TransformBuffers(const fhe::DeviceSpec& device,
                                   const std::vector<std::uint64_t>& input)
    : device_(device), words_(input.size()) {
  if (device_.kind == fhe::DeviceKind::cpu) {
    host_pristine_ = input;
    host_work_ = input;
    pristine_ = host_pristine_.data();
    work_ = host_work_.data();
    return;
  }
#if FHELIUM_HAS_CUDA
  const int index = device_.index;
  const std::size_t bytes = words_ * sizeof(std::uint64_t);
  check_cuda(cudaSetDevice(index), "cudaSetDevice", index);
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate", index);
  stream_ = stream;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&pristine_), bytes), "cudaMalloc (NTT input)", index);
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&work_), bytes), "cudaMalloc (NTT work)", index);
  check_cuda(cudaMemcpy(pristine_, input.data(), bytes, cudaMemcpyHostToDevice),
             "cudaMemcpy (NTT input upload)", index);
  restore();
#else
  throw fhe::DeviceError("device " + device_.str() + " requested but this build has no CUDA support");
#endif
}

TransformBuffers::~TransformBuffers() {
#if FHELIUM_HAS_CUDA
  if (device_.kind == fhe::DeviceKind::cuda) {
    if (pristine_) cudaFree(pristine_);
    if (work_) cudaFree(work_);
    if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  }
#endif
}

void TransformBuffers::restore() {
  if (device_.kind == fhe::DeviceKind::cpu) {
    std::copy(host_pristine_.begin(), host_pristine_.end(), host_work_.begin());
    return;
  }
#if FHELIUM_HAS_CUDA
  auto stream = static_cast<cudaStream_t>(stream_);
  check_cuda(cudaMemcpyAsync(work_, pristine_, words_ * sizeof(std::uint64_t),
                             cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (NTT input restore)", device_.index);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", device_.index);
#endif
}

}  // namespace fhelium
