// Multiply-adds into 64-bit words, written as 32-bit carry chains
// (mad.lo.cc.u32 + madc.hi.u32). ptxas fuses such a chain into one
// IMAD.WIDE.U32 with its accumulator; the same sum written as C++ 64-bit
// products, or as mad.wide.u32, got a separate 64-bit add (IADD3 +
// IADD3.X) for many of its terms (session 32, docs/performance.md: the
// fused key product's ten-digit loop 289 -> 209 instructions, the ModUp
// conversion's loop 181 -> 153). FHE_HD: on the host, the plain sums.
#pragma once

#include <cstdint>

#include "fhe/core/host_device.h"

namespace fhe::cuda {

// acc + x y, exact (x y < 2^64; the caller keeps the sum below 2^64).
FHE_HD std::uint64_t mad_wide_chained(std::uint32_t x, std::uint32_t y, std::uint64_t acc) {
#if defined(__CUDA_ARCH__)
  std::uint64_t out;
  asm("{\n\t.reg .u32 lo, hi;\n\tmov.b64 {lo, hi}, %3;\n\tmad.lo.cc.u32 lo, %1, %2, lo;\n\t"
      "madc.hi.u32 hi, %1, %2, hi;\n\tmov.b64 %0, {lo, hi};\n\t}"
      : "=l"(out)
      : "r"(x), "r"(y), "l"(acc));
  return out;
#else
  return acc + static_cast<std::uint64_t>(x) * y;
#endif
}

// sum + x y mod 2^64: one IMAD.WIDE.U32 with the accumulator and two IMADs.
FHE_HD std::uint64_t mad_low(std::uint64_t x, std::uint64_t y, std::uint64_t sum) {
#if defined(__CUDA_ARCH__)
  asm("{\n\t.reg .u32 xl, xh, yl, yh, sl, sh;\n\tmov.b64 {xl, xh}, %1;\n\tmov.b64 {yl, yh}, %2;\n\t"
      "mov.b64 {sl, sh}, %0;\n\tmad.lo.cc.u32 sl, xl, yl, sl;\n\tmadc.hi.u32 sh, xl, yl, sh;\n\t"
      "mad.lo.u32 sh, xl, yh, sh;\n\tmad.lo.u32 sh, xh, yl, sh;\n\tmov.b64 %0, {sl, sh};\n\t}"
      : "+l"(sum)
      : "l"(x), "l"(y));
  return sum;
#else
  return sum + x * y;
#endif
}

// The same for a 32-bit x: one IMAD.WIDE.U32 with the accumulator and one IMAD
// (through the 64-bit form, the split sums' loops of 6-8 sources took 15-30 %
// more instructions).
FHE_HD std::uint64_t mad_low(std::uint32_t x, std::uint64_t y, std::uint64_t sum) {
#if defined(__CUDA_ARCH__)
  asm("{\n\t.reg .u32 yl, yh, sl, sh;\n\tmov.b64 {yl, yh}, %2;\n\tmov.b64 {sl, sh}, %0;\n\t"
      "mad.lo.cc.u32 sl, %1, yl, sl;\n\tmadc.hi.u32 sh, %1, yl, sh;\n\tmad.lo.u32 sh, %1, yh, sh;\n\t"
      "mov.b64 %0, {sl, sh};\n\t}"
      : "+l"(sum)
      : "r"(x), "l"(y));
  return sum;
#else
  return sum + static_cast<std::uint64_t>(x) * y;
#endif
}

}  // namespace fhe::cuda
