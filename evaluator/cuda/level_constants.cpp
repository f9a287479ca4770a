// Flattening the CPU schedule objects into one device blob per level.
#include "evaluator/cuda/level_constants.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "fhe/core/error.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace fhe::cuda {
namespace {

// Appends arrays to a host byte image (16-byte aligned) and later rebases
// their offsets onto the uploaded copy.
class BlobBuilder {
 public:
  template <typename T>
  std::size_t add(std::span<const T> values) {
    const std::size_t offset = (bytes_.size() + 15) / 16 * 16;
    bytes_.resize(offset + values.size_bytes());
    if (!values.empty()) std::memcpy(bytes_.data() + offset, values.data(), values.size_bytes());
    return offset;
  }
  template <typename T>
  std::size_t add(const std::vector<T>& values) {
    return add(std::span<const T>(values));
  }
  template <typename T>
  void write(std::size_t offset, const T& value) {
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

struct ConversionOffsets {
  std::size_t source_moduli, hat_inverse, hat_inverse_shoup, target_moduli, target_offsets, hat_plain, hat_quotient,
      split_hats, split_quotients, minus_q, minus_q_quotient;
};

// Word x of target t out of its Montgomery form.
std::uint64_t plain_of(const BasisConversion& c, std::size_t t, std::uint64_t x) {
  return montgomery_reduce(0, x, c.target_moduli[t].value, c.target_factors[t]);
}

// The sums' constants (DeviceConversion). Each quotient fl(h / p_t) comes
// from the doubles of both: relative error at most 3 * 2^-53 when p_t > 2^53.
// The centred sums' h and fl(h / p_t) are also the split pairs' first
// halves; they are uploaded apart as well so that a block stages each
// conversion's hats contiguously and its threads load them two to a 16-byte
// load (load_hats).
struct SumConstants {
  std::vector<std::uint64_t> hat_plain, split_hats, minus_q;
  std::vector<double> hat_quotient, split_quotients, minus_q_quotient;

  explicit SumConstants(const BasisConversion& c) {
    for (std::size_t t = 0; t < c.target_count(); ++t) {
      const std::uint64_t p = c.target_moduli[t].value;
      const auto quotient = [&](std::uint64_t h) { return static_cast<double>(h) / static_cast<double>(p); };
      const std::uint64_t two32 = (std::uint64_t{1} << 32) % p;
      for (std::size_t i = 0; i < c.source_count(); ++i) {
        const std::uint64_t h = plain_of(c, t, c.hat_montgomery[t * c.source_count() + i]);
        const std::uint64_t high = mul_mod_exact<std::uint64_t>(h, two32, p);
        hat_plain.push_back(h);
        hat_quotient.push_back(quotient(h));
        split_hats.insert(split_hats.end(), {h, high});
        split_quotients.insert(split_quotients.end(), {quotient(h), quotient(high)});
      }
      minus_q.push_back(plain_of(c, t, c.minus_q_montgomery[t]));
      minus_q_quotient.push_back(quotient(minus_q.back()));
    }
  }
};

bool sources_below(const BasisConversion& c, int bits) {
  return std::all_of(c.source_moduli.begin(), c.source_moduli.end(),
                     [&](const auto& q) { return q.value < (std::uint64_t{1} << bits); });
}

ConversionOffsets add_conversion(BlobBuilder& blob, const BasisConversion& c) {
  if (c.source_count() > static_cast<std::size_t>(kMaxConversionSources)) {
    throw InvalidArgument("CUDA basis conversion: " + std::to_string(c.source_count()) +
                          " sources (at most " + std::to_string(kMaxConversionSources) + ")");
  }
  std::vector<std::uint32_t> offsets(c.target_offsets.begin(), c.target_offsets.end());
  const SumConstants k(c);
  return {blob.add(c.source_moduli),   blob.add(c.hat_inverse),         blob.add(c.hat_inverse_shoup),
          blob.add(c.target_moduli),   blob.add(offsets),               blob.add(k.hat_plain),
          blob.add(k.hat_quotient),    blob.add(k.split_hats),          blob.add(k.split_quotients),
          blob.add(k.minus_q),         blob.add(k.minus_q_quotient)};
}

DeviceConversion rebase(const BasisConversion& c, const ConversionOffsets& o, const std::uint8_t* base) {
  DeviceConversion d;
  d.sources = static_cast<int>(c.source_count());
  d.targets = static_cast<int>(c.target_count());
  d.source_moduli = reinterpret_cast<const Modulus<std::uint64_t>*>(base + o.source_moduli);
  d.hat_inverse = reinterpret_cast<const std::uint64_t*>(base + o.hat_inverse);
  d.hat_inverse_shoup = reinterpret_cast<const std::uint64_t*>(base + o.hat_inverse_shoup);
  d.target_moduli = reinterpret_cast<const Modulus<std::uint64_t>*>(base + o.target_moduli);
  d.target_offsets = reinterpret_cast<const std::uint32_t*>(base + o.target_offsets);
  d.centred_estimate =
      c.source_count() <= static_cast<std::size_t>(kMaxCentredSources) && sources_below(c, kCentredSourceBits);
  d.close_estimate = sources_below(c, kCloseEstimateSourceBits);
  d.hat_plain = reinterpret_cast<const std::uint64_t*>(base + o.hat_plain);
  d.hat_quotient = reinterpret_cast<const double*>(base + o.hat_quotient);
  d.split_hats = reinterpret_cast<const std::uint64_t*>(base + o.split_hats);
  d.split_quotients = reinterpret_cast<const double*>(base + o.split_quotients);
  d.minus_q = reinterpret_cast<const std::uint64_t*>(base + o.minus_q);
  d.minus_q_quotient = reinterpret_cast<const double*>(base + o.minus_q_quotient);
  return d;
}

struct ScaleDownOffsets {
  ConversionOffsets conversion;
  std::size_t inverse, inverse_shoup;
};

ScaleDownOffsets add_scale_down(BlobBuilder& blob, const RnsScaleDown& s) {
  return {add_conversion(blob, s.dropped_to_kept), blob.add(s.inverse_mod_kept),
          blob.add(s.inverse_mod_kept_shoup)};
}

DeviceScaleDown rebase(const RnsScaleDown& s, const ScaleDownOffsets& o, const std::uint8_t* base) {
  DeviceScaleDown d;
  d.conversion = rebase(s.dropped_to_kept, o.conversion, base);
  d.inverse_mod_kept = reinterpret_cast<const std::uint64_t*>(base + o.inverse);
  d.inverse_mod_kept_shoup = reinterpret_cast<const std::uint64_t*>(base + o.inverse_shoup);
  d.kept_rows = static_cast<int>(s.kept_rows.count);
  return d;
}

// The rescale's one-source conversion as centred lifts (ntt::gpu::CentredLift).
std::vector<ntt::gpu::CentredLiftRow> centred_lift_rows(const RnsScaleDown& s) {
  const BasisConversion& c = s.dropped_to_kept;
  if (c.source_count() != 1) {
    throw InvalidArgument("CUDA rescale: the dropped rows are " + std::to_string(c.source_count()) +
                          " primes (one expected)");
  }
  std::vector<ntt::gpu::CentredLiftRow> rows;
  const std::uint64_t d = c.source_moduli[0].value;
  for (const auto& p : c.target_moduli) rows.push_back(ntt::gpu::make_centred_lift_row(d, p.value));
  return rows;
}

struct Layout {
  BlobBuilder blob;
  std::vector<ConversionOffsets> digits;
  std::size_t digit_array = 0;
  std::size_t own_row_starts = 0;
  ScaleDownOffsets mod_down{};
  ScaleDownOffsets rescale{};
  ScaleDownOffsets mod_down_rescale{};
  std::size_t rescale_lift = 0;
  std::size_t mod_up_lift = 0;
  int lifted_digits = 0;
};

// A level's rescales (none at the last level).
struct Rescales {
  std::optional<RnsScaleDown> rescale, mod_down_rescale;
};

Rescales make_rescales(const Preset& preset, int level) {
  Rescales r;
  if (level < preset.levels) {
    r.rescale = make_rescale(preset, level);
    r.mod_down_rescale = make_mod_down_rescale(preset, level);
  }
  return r;
}

// Where each digit's own rows start among the extended rows, and where the
// last ends: the digits cover the active Q rows in order, without gaps.
std::vector<std::uint32_t> own_row_starts(const KeySwitchSchedule& schedule) {
  std::vector<std::uint32_t> starts;
  std::size_t next = schedule.active_q_rows.first;
  for (const KeySwitchDigit& digit : schedule.digits) {
    if (digit.q_rows.first != next) {
      throw InvalidArgument("CUDA key switching: the digits of level " + std::to_string(schedule.level) +
                            " do not cover the active Q rows in order");
    }
    starts.push_back(static_cast<std::uint32_t>(digit.q_rows.first - schedule.extended_rows.first));
    next = digit.q_rows.first + digit.q_rows.count;
  }
  starts.push_back(static_cast<std::uint32_t>(next - schedule.extended_rows.first));
  return starts;
}

Layout lay_out(const KeySwitchSchedule& schedule, const Rescales& rescales) {
  Layout layout;
  for (const KeySwitchDigit& digit : schedule.digits) layout.digits.push_back(add_conversion(layout.blob, digit.mod_up));
  // Placeholder array of DeviceConversion, filled once the device base is known.
  layout.digit_array =
      layout.blob.add(std::vector<DeviceConversion>(schedule.digits.size()));
  layout.own_row_starts = layout.blob.add(own_row_starts(schedule));
  const ModUpLift lift = mod_up_lift(schedule);
  layout.mod_up_lift = layout.blob.add(lift.rows);
  layout.lifted_digits = lift.digits;
  layout.mod_down = add_scale_down(layout.blob, schedule.mod_down);
  if (rescales.rescale) {
    layout.rescale = add_scale_down(layout.blob, *rescales.rescale);
    layout.rescale_lift = layout.blob.add(centred_lift_rows(*rescales.rescale));
    layout.mod_down_rescale = add_scale_down(layout.blob, *rescales.mod_down_rescale);
  }
  return layout;
}

}  // namespace

ModUpLift mod_up_lift(const KeySwitchSchedule& schedule) {
  ModUpLift lift;
  const std::size_t ext_rows = schedule.extended_rows.count;
  std::size_t first = schedule.digits.size();
  while (first > 0 && schedule.digits[first - 1].q_rows.count == 1) --first;
  for (std::size_t d = first; d < schedule.digits.size(); ++d) {
    const BasisConversion& c = schedule.digits[d].mod_up;
    const std::uint64_t source = c.source_moduli[0].value;
    std::vector<ntt::gpu::CentredLiftRow> rows(ext_rows, ntt::gpu::make_centred_lift_row(source, source));
    for (std::size_t t = 0; t < c.target_count(); ++t) {
      rows.at(c.target_offsets[t]) = ntt::gpu::make_centred_lift_row(source, c.target_moduli[t].value);
    }
    lift.rows.insert(lift.rows.end(), rows.begin(), rows.end());
  }
  lift.digits = static_cast<int>(schedule.digits.size() - first);
  return lift;
}

DeviceConversion host_conversion_view(const BasisConversion& conversion, std::vector<std::uint8_t>& image) {
  BlobBuilder blob;
  const ConversionOffsets offsets = add_conversion(blob, conversion);
  image = std::move(blob.bytes());
  return rebase(conversion, offsets, image.data());
}

std::size_t level_constants_bytes(const Preset& preset, const KeySwitchSchedule& schedule) {
  return lay_out(schedule, make_rescales(preset, schedule.level)).blob.bytes().size();
}

LevelConstants upload_level_constants(const Preset& preset, const KeySwitchSchedule& schedule) {
  const Rescales rescales = make_rescales(preset, schedule.level);
  Layout layout = lay_out(schedule, rescales);
  LevelConstants out;
  out.level = schedule.level;
  out.first_digit = schedule.digits.front().index;
  out.digit_count = static_cast<int>(schedule.digits.size());
  for (const KeySwitchDigit& digit : schedule.digits) {
    out.max_digit_rows = std::max(out.max_digit_rows, static_cast<int>(digit.q_rows.count));
  }
  out.blob = DeviceBuffer<std::uint8_t>(layout.blob.bytes().size(),
                                        "key-switch constants of level " + std::to_string(schedule.level));
  const std::uint8_t* base = out.blob.data();
  for (std::size_t d = 0; d < schedule.digits.size(); ++d) {
    const KeySwitchDigit& digit = schedule.digits[d];
    DeviceConversion c = rebase(digit.mod_up, layout.digits[d], base);
    // The digit's coefficient rows sit (first - level) rows into the input.
    c.source_offset_rows = static_cast<int>(digit.q_rows.first - schedule.active_q_rows.first);
    layout.blob.write(layout.digit_array + d * sizeof(DeviceConversion), c);
  }
  out.mod_up = reinterpret_cast<const DeviceConversion*>(base + layout.digit_array);
  out.own_row_starts = reinterpret_cast<const std::uint32_t*>(base + layout.own_row_starts);
  out.mod_down = rebase(schedule.mod_down, layout.mod_down, base);
  if (rescales.rescale) {
    out.rescale = rebase(*rescales.rescale, layout.rescale, base);
    out.mod_down_rescale = rebase(*rescales.mod_down_rescale, layout.mod_down_rescale, base);
    out.has_rescale = true;
    out.rescale_lift.constants = reinterpret_cast<const ntt::gpu::CentredLiftRow*>(base + layout.rescale_lift);
  }
  out.lifted_digits = layout.lifted_digits;
  if (out.lifted_digits > 0) {
    // The lifted digits' rows are consecutive rows of the input.
    const KeySwitchDigit& first = schedule.digits[schedule.digits.size() - out.lifted_digits];
    out.lifted_first_row = first.q_rows.first - schedule.active_q_rows.first;
    out.mod_up_lift.constants = reinterpret_cast<const ntt::gpu::CentredLiftRow*>(base + layout.mod_up_lift);
    out.mod_up_lift.first_block = static_cast<std::uint32_t>(out.digit_count - out.lifted_digits);
    out.mod_up_lift.constants_stride = static_cast<std::uint32_t>(schedule.extended_rows.count);
  }
  out.blob.upload(layout.blob.bytes());
  return out;
}

}  // namespace fhe::cuda
