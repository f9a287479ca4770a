// HugePageAllocator: small buffers as usual, large ones aligned to a huge
// page, every word writable and read back, the same through RnsPoly.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fhe/ckks/rns_poly.h"
#include "fhe/core/huge_page_allocator.h"

namespace fhe {
namespace {

using HugeWords = std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>>;

TEST(HugePageAllocator, LargeBuffersAreHugePageAlignedAndHoldTheirWords) {
  for (const std::size_t words : {std::size_t{1000}, kHugePageMinBytes / 8 - 1, kHugePageMinBytes / 8,
                                  std::size_t{39} << 16}) {
    HugeWords buffer(words);
    if (words * 8 >= kHugePageMinBytes) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % kHugePageBytes, 0u) << words << " words";
    }
    for (std::size_t i = 0; i < words; ++i) buffer[i] = i * 0x9E3779B97F4A7C15ull;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < words; ++i) wrong += buffer[i] != i * 0x9E3779B97F4A7C15ull;
    EXPECT_EQ(wrong, 0u) << words << " words";
    const HugeWords copy = buffer;
    EXPECT_EQ(copy, buffer);
  }
}

TEST(HugePageAllocator, RnsPolyCopiesAndComparesItsWords) {
  RnsPoly poly(2, 39, std::size_t{1} << 16, true);  // 20 MB: huge pages
  poly.row(40)[65535] = 7;
  RnsPoly copy = poly;
  EXPECT_EQ(copy, poly);
  copy.row(2)[0] = 1;
  EXPECT_NE(copy, poly);
  EXPECT_EQ(poly.copy_rows({40, 1}).words().back(), 7u);
}

}  // namespace
}  // namespace fhe
