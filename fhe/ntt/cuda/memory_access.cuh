// Global-memory accesses of the NTT kernels: 16-byte pairs of stored words
// and read-only twiddle pairs. On the device they compile to single vector
// loads and stores (through the read-only cache for twiddles); on the host
// (emulation test) to plain element accesses.
#pragma once

#include <cstdint>

#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::ntt::gpu {

// Two consecutive stored words at a 16-byte aligned address.
FHE_HD void load_two(const std::uint64_t* p, std::uint64_t& a, std::uint64_t& b) {
#if defined(__CUDA_ARCH__)
  const ulonglong2 v = *reinterpret_cast<const ulonglong2*>(p);
  a = v.x;
  b = v.y;
#else
  a = p[0];
  b = p[1];
#endif
}

FHE_HD void store_two(std::uint64_t* p, std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<ulonglong2*>(p) = make_ulonglong2(a, b);
#else
  p[0] = a;
  p[1] = b;
#endif
}

FHE_HD TwiddlePair<std::uint64_t> load_twiddle(const TwiddlePair<std::uint64_t>* p) {
#if defined(__CUDA_ARCH__)
  const ulonglong2 v = __ldg(reinterpret_cast<const ulonglong2*>(p));
  return {v.x, v.y};
#else
  return *p;
#endif
}

FHE_HD TwiddlePair<std::uint32_t> load_twiddle(const TwiddlePair<std::uint32_t>* p) {
#if defined(__CUDA_ARCH__)
  const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
  return {v.x, v.y};
#else
  return *p;
#endif
}

FHE_HD double load_fp64(const double* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// 8-byte words in one 128-byte L2 line: the unit discard_line_from_l2 drops.
inline constexpr std::uint32_t kWordsPerL2Line = 16;

// Drops the 128-byte line at `line` (128-byte aligned) from L2 without
// writing it back (discard.global.L2; sm_80 and later): for scratch words
// that were just read for the last time, so their dirty lines cost no DRAM
// write when L2 evicts them. The words are undefined afterwards. A no-op on
// the host (emulation test) and for a line that is not aligned.
FHE_HD void discard_line_from_l2(const void* line) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if ((reinterpret_cast<std::uintptr_t>(line) & 127u) == 0) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(line) : "memory");
  }
#else
  (void)line;
#endif
}

// Programmatic dependent launch (sm_90): the kernels are launched so that
// the next pass may start while this one drains; it loads its twiddles
// (written at plan creation) and then waits here for the previous kernel to
// complete, with its writes visible, before touching the data. A no-op
// without the launch attribute and on the host (emulation test).
FHE_HD void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel of the stream be scheduled once every block of this
// one has started (a hint; the next kernel still waits for completion).
FHE_HD void allow_next_kernel_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

}  // namespace fhe::ntt::gpu
