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

// A sum of 64 x 64 -> 128-bit products mod 2^128, in carry chains that keep
// every 64-bit multiply-add on a register pair of its own: x0 y0 + x1 y1
// 2^64 into (high, low), the cross products x0 y1 + x1 y0 into `middle`
// (weight 2^32), whose carries go to high's top 32 bits: 6 instructions a
// product, 11 as 128-bit C++ products (ptxas, sm_90: the rotation kernels'
// wide rows, docs/performance.md session 33). Adding the cross products
// into (high, low) directly put them on misaligned register pairs and took
// more than the C++ form.
struct Sum128 {
  std::uint64_t low = 0, high = 0, middle = 0;
  FHE_HD void add(std::uint64_t x, std::uint64_t y) {
#if defined(__CUDA_ARCH__)
    asm("{\n\t.reg .u32 x0, x1, y0, y1, a0, a1, a2, a3, m0, m1;\n\tmov.b64 {x0, x1}, %3;\n\t"
        "mov.b64 {y0, y1}, %4;\n\tmov.b64 {a0, a1}, %0;\n\tmov.b64 {a2, a3}, %1;\n\tmov.b64 {m0, m1}, %2;\n\t"
        "mad.lo.cc.u32 a0, x0, y0, a0;\n\tmadc.hi.cc.u32 a1, x0, y0, a1;\n\t"
        "madc.lo.cc.u32 a2, x1, y1, a2;\n\tmadc.hi.u32 a3, x1, y1, a3;\n\t"
        "mad.lo.cc.u32 m0, x0, y1, m0;\n\tmadc.hi.cc.u32 m1, x0, y1, m1;\n\taddc.u32 a3, a3, 0;\n\t"
        "mad.lo.cc.u32 m0, x1, y0, m0;\n\tmadc.hi.cc.u32 m1, x1, y0, m1;\n\taddc.u32 a3, a3, 0;\n\t"
        "mov.b64 %0, {a0, a1};\n\tmov.b64 %1, {a2, a3};\n\tmov.b64 %2, {m0, m1};\n\t}"
        : "+l"(low), "+l"(high), "+l"(middle)
        : "l"(x), "l"(y));
#else
    const unsigned __int128 sum = joined() + static_cast<unsigned __int128>(x) * y;
    low = static_cast<std::uint64_t>(sum);
    high = static_cast<std::uint64_t>(sum >> 64);
    middle = 0;
#endif
  }
  FHE_HD unsigned __int128 joined() const {
    return ((static_cast<unsigned __int128>(high) << 64) | low) + (static_cast<unsigned __int128>(middle) << 32);
  }
};

}  // namespace fhe::cuda
