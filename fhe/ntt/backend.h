// The public NTT backend interface: a name, a compatibility check, a plan
// built once per (backend, logN, rows), and forward/inverse over rows x N.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fhe/core/device.h"
#include "fhe/ntt/schedule.h"
#include "fhe/params/preset.h"

namespace fhe::ntt {

enum class BackendFamily { indexed, compact_grouped, strict_radix };

struct BackendInfo {
  std::string_view name;
  BackendFamily family;
  // Radix-2 stages per global pass: 1 (indexed), the group's log2 (2, 3, 4),
  // or the strict radix's b (2, 3, 4).
  int stages_per_pass;
  std::string_view structure;  // one-line description for listings
};

// Transform bits fused in the trailing shared-memory region (a 256-word tile).
inline constexpr int kSharedRegionBits = 8;

struct Compatibility {
  bool compatible = true;
  std::string reason;  // empty when compatible
};

// A contiguous range of a plan's rows (row = one RNS prime).
struct RowRange {
  std::size_t first = 0;
  std::size_t count = 0;
};

// The rows one transform covers at `level`: the active Q rows (ids level..L)
// followed by the P rows, contiguous in preset row order. Level 0 is all QP rows.
inline RowRange level_rows(const Preset& preset, int level) {
  const std::size_t q_rows = preset.active_q_rows(level);  // validates the level
  return {static_cast<std::size_t>(level), q_rows + preset.p_primes.size()};
}

// One kernel launch (or host pass) of a transform, for `fhelium ntt describe`
// and reports. GPU fields stay zero for CPU plans.
struct LaunchDescription {
  std::string kernel;  // kernel (or host routine) name
  PassKind pass_kind = PassKind::global_stage;
  int first_stage = 0;  // forward stage index of the pass's first stage
  int stage_count = 0;
  int launch_count = 1;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  int registers_per_thread = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t dynamic_shared_bytes = 0;
  int max_blocks_per_sm = 0;  // resident blocks per SM for this block size
  // Model: data words read and written once per pass (64-bit storage) plus
  // each distinct twiddle (and index) word the pass reads, as if nothing
  // stayed in a cache between passes.
  std::size_t modelled_dram_bytes = 0;
};

// Opaque CUDA stream (cudaStream_t) so that this header stays CUDA-free.
struct StreamHandle {
  void* native = nullptr;
};

class NttPlan {
 public:
  virtual ~NttPlan() = default;

  virtual const BackendInfo& backend() const = 0;
  virtual DeviceSpec device() const = 0;
  virtual int log_n() const = 0;
  virtual std::size_t row_count() const = 0;
  virtual const std::vector<std::uint64_t>& moduli() const = 0;
  virtual const NttSchedule& schedule() const = 0;

  // `data` holds rows.count rows of N words (row-major), the plan's rows
  // [rows.first, rows.first + rows.count). Host memory for CPU plans; device
  // memory for CUDA plans, enqueued on `stream` (asynchronous). Inputs must
  // be reduced into [0, q); outputs are reduced into [0, q). The forward
  // output is in bit-reversed order; the inverse takes that order back and
  // includes the N^-1 scaling.
  virtual void forward(std::uint64_t* data, RowRange rows, StreamHandle stream = {}) const = 0;
  virtual void inverse(std::uint64_t* data, RowRange rows, StreamHandle stream = {}) const = 0;
  // `batch` blocks of rows.count rows back to back in `data`, every block
  // the plan's rows `rows` (the digits of a key switch's ModUp, say): the
  // same words as `batch` calls, but a CUDA plan makes one launch per pass
  // for all of them.
  void forward_batch(std::uint64_t* data, RowRange rows, std::size_t batch,
                     StreamHandle stream = {}) const {
    transform_batch(data, rows, batch, stream, true);
  }
  void inverse_batch(std::uint64_t* data, RowRange rows, std::size_t batch,
                     StreamHandle stream = {}) const {
    transform_batch(data, rows, batch, stream, false);
  }

  // The launches (passes) of one forward or inverse transform over `rows`,
  // in execution order. Allocates nothing on the device.
  virtual std::vector<LaunchDescription> describe(RowRange rows, bool forward) const = 0;

  std::size_t n() const { return std::size_t{1} << log_n(); }
  RowRange all_rows() const { return {0, row_count()}; }

 protected:
  // Block by block unless a plan does better.
  virtual void transform_batch(std::uint64_t* data, RowRange rows, std::size_t batch,
                               StreamHandle stream, bool forward) const {
    for (std::size_t b = 0; b < batch; ++b) {
      std::uint64_t* block = data + b * rows.count * n();
      if (forward) {
        this->forward(block, rows, stream);
      } else {
        this->inverse(block, rows, stream);
      }
    }
  }
};

}  // namespace fhe::ntt
