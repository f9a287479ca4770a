// Per-level device constants of the CUDA evaluator, built from the CPU's
// KeySwitchSchedule (ModUp per digit, ModDown) and the rescale and
// ModDown-and-rescale RnsScaleDowns of that level, uploaded once as one blob. All levels are uploaded when the
// evaluator is built, so no operation allocates or copies from the host
// (graph capture needs that).
#pragma once

#include <cstdint>
#include <vector>

#include "evaluator/cuda/device_conversion.h"
#include "evaluator/key_switch_schedule.h"
#include "evaluator/rns_scale_down.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::cuda {

struct LevelConstants {
  int level = 0;
  int first_digit = 0;   // key component of active digit 0
  int digit_count = 0;   // active digits
  int max_digit_rows = 0;  // the largest active digit's rows (its ModUp's sources)
  const DeviceConversion* mod_up = nullptr;  // device array [digit_count]
  // Device array [digit_count + 1]: digit d's own rows (the input's rows it
  // is made of) are extended rows [own_row_starts[d], own_row_starts[d + 1])
  // (ntt::gpu::PassArgs::skip_starts).
  const std::uint32_t* own_row_starts = nullptr;
  DeviceScaleDown mod_down;                  // extended rows -> rows level..L
  DeviceScaleDown rescale;                   // drop row `level` (unset at the last level)
  DeviceScaleDown mod_down_rescale;          // drop the P rows and row `level` (the same)
  bool has_rescale = false;
  // The rescale's conversion as the kept rows' forward transform loads it
  // (the dropped row is one source): constants set, rows left to
  // the caller.
  ntt::gpu::CentredLift rescale_lift{};
  // The ModUp's last `lifted_digits` digits have one active prime each
  // (the base prime's digit; at the last levels every digit): their
  // conversion is a centred lift, which the extended rows' first forward
  // pass can apply as it loads the digit's row. mod_up_lift: constants per
  // lifted digit and extended row, first_block = the first lifted digit;
  // rows left to the caller (the input's coefficient rows from
  // lifted_first_row on, one a lifted digit).
  int lifted_digits = 0;
  std::size_t lifted_first_row = 0;
  ntt::gpu::CentredLift mod_up_lift{};
  DeviceBuffer<std::uint8_t> blob;           // owns every pointer above
};

// The rescales are made here (make_rescale, make_mod_down_rescale) below
// the last level.
LevelConstants upload_level_constants(const Preset& preset, const KeySwitchSchedule& schedule);

// A conversion's device view over a host image of its arrays (`image`
// receives them): the host emulation test runs the conversion's thread
// body on it.
DeviceConversion host_conversion_view(const BasisConversion& conversion, std::vector<std::uint8_t>& image);

// The ModUp's last digits of one active prime each (always the base
// prime's; at the last levels every digit) as centred lifts: a one-source
// conversion is the centred lift (basis_conversion.h), so the extended
// rows' first forward pass applies it as it loads the digit's row
// (ntt::gpu::CentredLift) and no conversion writes those rows first. Per
// lifted digit, one entry for each extended row (its own row's is unused:
// the passes skip it). Host data: LevelConstants::mod_up_lift uploads it.
struct ModUpLift {
  int digits = 0;
  std::vector<ntt::gpu::CentredLiftRow> rows;
};
ModUpLift mod_up_lift(const KeySwitchSchedule& schedule);

// Bytes upload_level_constants will allocate for this level (memory estimate).
std::size_t level_constants_bytes(const Preset& preset, const KeySwitchSchedule& schedule);

}  // namespace fhe::cuda
