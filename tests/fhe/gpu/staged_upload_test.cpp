// cuda::StagedUploader on a GPU: every upload lands in its own buffer with
// the bytes its form wrote, across more uploads than staging buffers and
// sizes that grow a buffer; a form that throws copies nothing and leaves
// the uploader usable. Without a GPU the tests skip with the reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "fhe/core/device_info.h"
#include "tests/support/gpu_skip.h"
#if FHELIUM_HAS_CUDA
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/staged_upload.h"
#endif

namespace {

#if FHELIUM_HAS_CUDA
std::uint8_t pattern(std::size_t upload, std::size_t k) { return static_cast<std::uint8_t>(upload * 31 + k * 7 + 1); }
#endif

TEST(StagedUploader, EveryUploadLandsWithItsOwnBytes) {
  FHE_SKIP_WITHOUT_GPU();
#if FHELIUM_HAS_CUDA
  // Five uploads through two buffers; the third and fifth grow theirs.
  const std::vector<std::size_t> sizes = {1 << 20, 1 << 20, 3 << 20, 5, 4 << 20};
  std::vector<fhe::cuda::DeviceBuffer<std::uint8_t>> device;
  {
    fhe::cuda::StagedUploader uploader;
    for (std::size_t u = 0; u < sizes.size(); ++u) {
      device.emplace_back(sizes[u]);
      uploader.upload(device.back().data(), sizes[u], [&](std::span<std::uint8_t> bytes) {
        ASSERT_EQ(bytes.size(), sizes[u]);
        for (std::size_t k = 0; k < bytes.size(); ++k) bytes[k] = pattern(u, k);
      });
    }
    uploader.finish();
  }
  for (std::size_t u = 0; u < sizes.size(); ++u) {
    const std::vector<std::uint8_t> back = device[u].download();
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < back.size(); ++k) wrong += back[k] != pattern(u, k);
    EXPECT_EQ(wrong, 0u) << "upload " << u << " of " << sizes[u] << " bytes";
  }
#endif
}

TEST(StagedUploader, AFormThatThrowsCopiesNothing) {
  FHE_SKIP_WITHOUT_GPU();
#if FHELIUM_HAS_CUDA
  const std::size_t size = 1 << 16;
  fhe::cuda::DeviceBuffer<std::uint8_t> kept(size), next(size);
  kept.upload(std::vector<std::uint8_t>(size, 0xAB));
  fhe::cuda::StagedUploader uploader;
  EXPECT_THROW(uploader.upload(kept.data(), size,
                               [](std::span<std::uint8_t> bytes) {
                                 bytes[0] = 1;
                                 throw std::runtime_error("form failed");
                               }),
               std::runtime_error);
  uploader.upload(next.data(), size, [](std::span<std::uint8_t> bytes) {
    for (std::uint8_t& b : bytes) b = 0x5C;
  });
  uploader.finish();
  EXPECT_EQ(kept.download(), std::vector<std::uint8_t>(size, 0xAB));
  EXPECT_EQ(next.download(), std::vector<std::uint8_t>(size, 0x5C));
#endif
}

}  // namespace
