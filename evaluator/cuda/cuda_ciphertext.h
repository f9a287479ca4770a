// A ciphertext (or, with one part, a plaintext) resident on a CUDA device:
// parts x rows x N words in ONE contiguous DeviceBuffer, rows level..L of
// the preset (part p at p * rows * N), NTT form, with level and scale. The
// buffer holds 3 parts at level 0 whatever the current shape, so it can
// receive the output of any operation without reallocating (graph capture
// replays into the same addresses). Callers that know an upper bound (a
// plaintext: 1 part; a rotation or plain product: 2) may ask for fewer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/cuda/device_buffer.h"

namespace fhe {

class CudaCiphertext {
 public:
  CudaCiphertext() = default;
  // Capacity for `capacity_parts` parts of `max_rows` rows of n words.
  CudaCiphertext(std::size_t max_rows, std::size_t n, std::size_t capacity_parts = 3)
      : words_(capacity_parts * max_rows * n, "CudaCiphertext"), max_rows_(max_rows), n_(n) {}

  std::size_t parts = 0;
  int level = 0;
  double scale = 1;

  std::size_t n() const { return n_; }
  std::size_t max_rows() const { return max_rows_; }
  // Active rows: ids level..L = max_rows - level.
  std::size_t rows() const { return max_rows_ - static_cast<std::size_t>(level); }
  std::size_t part_words() const { return rows() * n_; }
  std::uint64_t* part(std::size_t p) { return words_.data() + p * part_words(); }
  const std::uint64_t* part(std::size_t p) const { return words_.data() + p * part_words(); }
  std::uint64_t* data() { return words_.data(); }
  const std::uint64_t* data() const { return words_.data(); }
  bool allocated() const { return words_.size() > 0; }
  std::size_t capacity_words() const { return words_.size(); }

 private:
  cuda::DeviceBuffer<std::uint64_t> words_;
  std::size_t max_rows_ = 0, n_ = 0;
};

}  // namespace fhe
