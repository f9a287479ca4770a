// Copy bandwidth on the device's legacy default stream, events around each copy.
#include "recommend/copy_bandwidth.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "recommend/sample_timer.h"
#if FHELIUM_HAS_CUDA
#include "fhe/cuda/device_buffer.h"
#include "recommend/cuda_check.h"
#endif

namespace fhelium {

CopyBandwidth measure_copy_bandwidth(const fhe::DeviceSpec& device, std::size_t buffer_bytes, int samples) {
  if (device.kind != fhe::DeviceKind::cuda)
    throw fhe::DeviceError("copy bandwidth needs a CUDA device, not " + device.str());
#if FHELIUM_HAS_CUDA
  check_cuda(cudaSetDevice(device.index), "cudaSetDevice", device.index);
  fhe::cuda::DeviceBuffer<unsigned char> source(buffer_bytes, "copy bandwidth source on " + device.str());
  fhe::cuda::DeviceBuffer<unsigned char> target(buffer_bytes, "copy bandwidth target on " + device.str());
  check_cuda(cudaMemset(source.data(), 0x5a, buffer_bytes), "cudaMemset", device.index);
  SampleTimer timer(device);
  CopyBandwidth out;
  out.buffer_bytes = buffer_bytes;
  for (int i = 0; i <= samples; ++i) {
    timer.start();
    check_cuda(cudaMemcpyAsync(target.data(), source.data(), buffer_bytes, cudaMemcpyDeviceToDevice, nullptr),
               "cudaMemcpyAsync (device to device)", device.index);
    const double ms = timer.stop_ms();
    if (i > 0) out.samples_ms.push_back(ms);  // the first copy is the warm-up
  }
  const double fastest_ms = *std::min_element(out.samples_ms.begin(), out.samples_ms.end());
  out.peak_gb_per_s = 2.0 * static_cast<double>(buffer_bytes) / (fastest_ms * 1e6);
  return out;
#else
  (void)buffer_bytes;
  (void)samples;
  throw fhe::DeviceError("device " + device.str() + " requested but this build has no CUDA support");
#endif
}

nlohmann::json to_json(const CopyBandwidth& b) {
  return {{"method", "device-to-device cudaMemcpyAsync of one buffer, timed with CUDA events, one warm-up copy "
                     "first; bytes counted read + write (2 x buffer), the fastest sample taken as the peak"},
          {"buffer_bytes", b.buffer_bytes},
          {"samples_ms", b.samples_ms},
          {"peak_gb_per_s", b.peak_gb_per_s}};
}

}  // namespace fhelium
