// launch_copy_words, the one-launch copies that replace memcpys between the
// ModDowns' kernels: every range lands where it is sent (odd lengths too),
// nothing beside it is written, and bad batches are refused before launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "evaluator/cuda/eval_kernels.h"
#include "fhe/core/error.h"
#include "fhe/cuda/device_buffer.h"
#include "tests/evaluator/gpu/gpu_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

constexpr u64 kUntouched = ~u64{0};

TEST(CudaCopyWords, CopiesEveryRangeAndNothingElse) {
  FHE_SKIP_WITHOUT_GPU();
  // Three ranges of different lengths (one odd: its last word copied
  // alone) from one source buffer into gaps of another.
  std::vector<u64> source(3000000);
  std::iota(source.begin(), source.end(), u64{1});
  const auto device_source = cuda::DeviceBuffer<u64>::from_host(source);
  auto device_out = cuda::DeviceBuffer<u64>::from_host(std::vector<u64>(source.size(), kUntouched));
  struct Range {
    std::size_t from, to, words;
  };
  const std::vector<Range> ranges = {{0, 2000000, 131072}, {131072, 10, 1001}, {200000, 300000, 1500000}};
  std::vector<cuda::WordCopy> copies;
  for (const Range& r : ranges) copies.push_back({device_source.data() + r.from, device_out.data() + r.to, r.words});
  cuda::launch_copy_words(copies.data(), static_cast<int>(copies.size()), nullptr);
  const std::vector<u64> got = device_out.download();

  std::vector<u64> expected(source.size(), kUntouched);
  for (const Range& r : ranges) std::copy_n(source.begin() + r.from, r.words, expected.begin() + r.to);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "word " << i;
}

TEST(CudaCopyWords, RefusesEmptyOversizedAndMisalignedBatches) {
  FHE_SKIP_WITHOUT_GPU();
  auto buffer = cuda::DeviceBuffer<u64>::from_host(std::vector<u64>(64, 0));
  std::vector<cuda::WordCopy> copies(cuda::kMaxWordCopies + 1, {buffer.data(), buffer.data() + 32, 2});
  EXPECT_THROW(cuda::launch_copy_words(copies.data(), 0, nullptr), InvalidArgument);
  EXPECT_THROW(cuda::launch_copy_words(copies.data(), cuda::kMaxWordCopies + 1, nullptr), InvalidArgument);
  const cuda::WordCopy odd_address{buffer.data() + 1, buffer.data() + 32, 2};
  EXPECT_THROW(cuda::launch_copy_words(&odd_address, 1, nullptr), InvalidArgument);
}

}  // namespace
}  // namespace fhe
