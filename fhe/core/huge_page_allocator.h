// A std::allocator for large host buffers (an RNS polynomial at logN 16
// over 39 rows is 20 MB) that asks Linux for transparent huge pages: 2 MiB
// pages, so a buffer's first writes take 512 times fewer page faults. Many
// kernels enable THP only where a program asks (madvise mode, as on the
// H200 machine and the development machine). Measured: host key
// generation -8.5 % on the H200 machine's 16 cores, an encryption at logN
// 14 -12 % on one core of the development machine (docs/performance.md,
// session 25). Buffers below kHugePageMinBytes come from operator new as
// usual; a large one wastes under 2 MiB of rounding.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fhe {

inline constexpr std::size_t kHugePageBytes = std::size_t{1} << 21;
inline constexpr std::size_t kHugePageMinBytes = 2 * kHugePageBytes;

template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    if (!huge(count)) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* pointer = std::aligned_alloc(kHugePageBytes, rounded);
    if (pointer == nullptr) throw std::bad_alloc();
#if defined(__linux__)
    madvise(pointer, rounded, MADV_HUGEPAGE);  // advice only: ignored where THP is off
#endif
    return static_cast<T*>(pointer);
  }
  void deallocate(T* pointer, std::size_t count) noexcept {
    if (huge(count)) {
      std::free(pointer);
    } else {
      ::operator delete(pointer);
    }
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }

 private:
  // Decides where a buffer comes from, so that deallocate frees it there.
  static bool huge(std::size_t count) { return count * sizeof(T) >= kHugePageMinBytes; }
};

}  // namespace fhe
