// An extended plaintext (CkksEngine::encode_extended) on a CUDA device, one
// word a block of 2^block_log words of each row (evaluator/block_rows.h):
// the lazy matvecs' diagonals, which their kernels would otherwise stream
// from DRAM (a 128 x 128 matvec's 128 diagonals: 10 MB instead of 2.6 GB).
// Word i of the plaintext's rows (level..L and P, n words each) is
// words[i >> block_log]; block_log 0 holds any plaintext.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/cuda/device_buffer.h"

namespace fhe {

struct CudaBlockPlain {
  cuda::DeviceBuffer<std::uint64_t> words;
  std::size_t rows = 0;
  int block_log = 0;
  int level = 0;
  double scale = 1;
};

}  // namespace fhe
