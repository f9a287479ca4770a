// An extended plaintext (CkksEngine::encode_extended) on a CUDA device in
// the packed row layout (evaluator/packed_rows.h): the lazy BSGS's
// diagonals, which its inner sums stream from DRAM. Allocated once for level
// 0 (CudaEvaluator::make_packed_extended); upload_packed fills it for the
// plaintext's level.
#pragma once

#include <cstdint>

#include "evaluator/packed_rows.h"
#include "fhe/cuda/device_buffer.h"

namespace fhe {

struct CudaPackedPlain {
  cuda::DeviceBuffer<std::uint8_t> bytes;
  PackedRows layout;  // of the plaintext's rows (level..L and P)
  int level = 0;
  double scale = 1;
};

}  // namespace fhe
