// CudaEvaluator: construction (memory check, uploads) and the operations,
// each a fixed sequence of enqueued kernels and plan calls.
#include "evaluator/cuda/cuda_evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "evaluator/block_rows.h"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/region_key_product.h"
#include "evaluator/cuda/region_scale_down.h"
#include "evaluator/cuda_workspace.h"
#include "fhe/arith/modarith.h"
#include "fhe/ckks/galois.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/cuda/cuda_plans.h"

namespace fhe {
namespace {

using cuda::DeviceBuffer;

const CkksEngine& checked_engine(const CkksEngine& engine) {
  if (!engine.on_cuda()) {
    throw InvalidArgument("CudaEvaluator: engine on " + engine.device().str() + " (preset " +
                          engine.preset().name + "); build the engine with device \"cuda:N\"");
  }
  if (!engine.has_keys()) {
    throw InvalidArgument("CudaEvaluator: no keys yet on preset " + engine.preset().name +
                          " (call generate_keys before building the evaluator)");
  }
  return engine;
}

std::string mib(std::size_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) + " MiB)";
}

std::string where(const CkksEngine& engine, const char* op, int level) {
  return std::string(op) + " (preset " + engine.preset().name + ", level " + std::to_string(level) + ")";
}

}  // namespace

CudaMemoryEstimate CudaEvaluator::estimate_memory(const CkksEngine& engine) {
  const Preset& preset = engine.preset();
  CudaMemoryEstimate e;
  e.key_bytes = cuda::device_key_bytes(engine);
  e.workspace_bytes = cuda_workspace_words(preset).total() * 8;
  e.constant_bytes = preset.qp_primes().size() * sizeof(Modulus<std::uint64_t>);
  for (int level = 0; level <= preset.levels; ++level) {
    e.constant_bytes += cuda::level_constants_bytes(preset, make_key_switch_schedule(preset, level));
  }
  return e;
}

CudaEvaluator::CudaEvaluator(const CkksEngine& engine, CudaEvaluatorOptions options)
    : engine_(checked_engine(engine)),
      plan_(engine.device_plan()),
      device_(engine.device().index),
      n_(engine.ntt_plan().n()),
      q_rows_(engine.preset().q_primes.size()),
      p_rows_(engine.preset().p_primes.size()),
      qp_rows_(q_rows_ + p_rows_),
      log_n_(engine.preset().log_n),
      stream_((require_device(engine.device()), cuda::DeviceGuard(device_), cuda::Stream())),
      schedules_(engine.preset()) {
  cuda::DeviceGuard guard(device_);
  const Preset& preset = engine.preset();
  if (options.shared_keys &&
      (options.shared_keys->source != engine.key_set() || options.shared_keys->device != device_)) {
    throw InvalidArgument("CudaEvaluator: the shared device keys are not this engine's current keys on " +
                          engine.device().str() + " (share keys() of an evaluator whose engine holds the same "
                          "key set: the same engine, or one this engine adopt_keys-ed)");
  }
  // Estimate before allocating anything, so a small device fails cleanly.
  CudaMemoryEstimate estimate = estimate_memory(engine);
  if (options.shared_keys) estimate.key_bytes = 0;
  std::size_t free_bytes = options.assume_free_bytes, total_bytes = 0;
  if (free_bytes == 0) FHE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), engine.device().str());
  if (estimate.total() > free_bytes) {
    throw DeviceError("CudaEvaluator on " + engine.device().str() + " (preset " + preset.name + ", backend " +
                      engine.ntt_backend() + ", " + std::to_string(engine.galois_keys().size()) +
                      " Galois keys) needs " + mib(estimate.total()) + " (keys " + mib(estimate.key_bytes) +
                      ", workspaces " + mib(estimate.workspace_bytes) + ") but only " + mib(free_bytes) +
                      " are free");
  }
  std::vector<Modulus<std::uint64_t>> moduli;
  for (std::uint64_t q : preset.qp_primes()) moduli.emplace_back(q);
  moduli_ = DeviceBuffer<Modulus<std::uint64_t>>::from_host(std::span<const Modulus<std::uint64_t>>(moduli),
                                                            "moduli");
  keys_ = options.shared_keys ? std::move(options.shared_keys)
                              : std::make_shared<const cuda::DeviceKeys>(cuda::upload_keys(engine));
  for (int level = 0; level <= preset.levels; ++level) {
    levels_.push_back(cuda::upload_level_constants(preset, schedules_.at(level)));
  }
  // Level 0's schedule covers every Q row, so its [P]_(q) serve all levels by row id.
  const KeySwitchSchedule& top = schedules_.at(0);
  p_mod_q_ = DeviceBuffer<std::uint64_t>::from_host(std::span<const std::uint64_t>(top.p_mod_q), "P mod q");
  p_mod_q_shoup_ = DeviceBuffer<std::uint64_t>::from_host(std::span<const std::uint64_t>(top.p_mod_q_shoup),
                                                          "P mod q");
  std::vector<std::uint64_t> ones(qp_rows_, 1), ones_shoup;
  for (std::uint64_t q : preset.qp_primes()) ones_shoup.push_back(shoup_companion(std::uint64_t{1}, q));
  one_mod_qp_ = DeviceBuffer<std::uint64_t>::from_host(std::span<const std::uint64_t>(ones), "1 mod q");
  one_mod_qp_shoup_ = DeviceBuffer<std::uint64_t>::from_host(std::span<const std::uint64_t>(ones_shoup), "1 mod q");
  const CudaWorkspaceWords words = cuda_workspace_words(preset);
  coefficients_ = DeviceBuffer<std::uint64_t>(words.coefficients, "evaluator workspace");
  extended_ = DeviceBuffer<std::uint64_t>(words.extended, "evaluator workspace");
  accumulators_ = DeviceBuffer<std::uint64_t>(words.accumulators, "evaluator workspace");
  converted_ = DeviceBuffer<std::uint64_t>(words.converted, "evaluator workspace");
  dropped_ = DeviceBuffer<std::uint64_t>(words.dropped, "evaluator workspace");
  rotations_ = DeviceBuffer<std::uint64_t>(words.rotations, "evaluator workspace");
}

CudaEvaluator::~CudaEvaluator() = default;

CudaCiphertext CudaEvaluator::make_ciphertext() const {
  cuda::DeviceGuard guard(device_);
  return CudaCiphertext(q_rows_, n_);
}

void CudaEvaluator::check_output(const CudaCiphertext& out, const char* op) const {
  if (out.max_rows() != q_rows_ || out.n() != n_) {
    throw InvalidArgument(std::string(op) + ": output ciphertext was not made by this evaluator "
                          "(make_ciphertext)");
  }
}

void CudaEvaluator::check_extended(const CudaCiphertext& x, const char* op, std::size_t parts) const {
  if (x.max_rows() != qp_rows_ || x.n() != n_) {
    throw InvalidArgument(std::string(op) + ": an extended ciphertext was expected (make_extended)");
  }
  if (x.capacity_words() < parts * qp_rows_ * n_) {
    throw InvalidArgument(std::string(op) + ": the extended buffer holds fewer than " + std::to_string(parts) +
                          " parts (make_extended(" + std::to_string(parts) + "))");
  }
}

CudaCiphertext CudaEvaluator::make_extended(std::size_t capacity_parts) const {
  cuda::DeviceGuard guard(device_);
  return CudaCiphertext(qp_rows_, n_, capacity_parts);
}

void CudaEvaluator::take_upload(std::span<const RnsPoly> parts, int level, double scale,
                                CudaCiphertext& device) const {
  // Into a make_ciphertext or a make_extended buffer; the row check below
  // refuses a host polynomial of the other kind. Checked before anything changes.
  if (device.max_rows() != qp_rows_) check_output(device, "upload");
  if (parts.size() < 1 || parts.size() > 3) throw InvalidArgument("upload: a ciphertext of 1 to 3 parts");
  const std::size_t rows = device.max_rows() - std::min<std::size_t>(device.max_rows(), level);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (level < 0 || parts[p].first_row() != static_cast<std::size_t>(level) || parts[p].row_count() != rows ||
        parts[p].n() != n_) {
      throw InvalidArgument("upload: part " + std::to_string(p) + " does not hold the buffer's rows from level " +
                            std::to_string(level));
    }
  }
  if (parts.size() * rows * n_ > device.capacity_words()) {
    throw InvalidArgument("upload: " + std::to_string(parts.size()) + " parts exceed the buffer's capacity");
  }
  device.parts = parts.size();
  device.level = level;
  device.scale = scale;
}

void CudaEvaluator::upload(const Ciphertext& host, CudaCiphertext& device) const {
  take_upload(host.parts, host.level, host.scale, device);
  for (std::size_t p = 0; p < host.size(); ++p) {
    FHE_CUDA_CHECK(cudaMemcpyAsync(device.part(p), host.parts[p].data(), device.part_words() * 8,
                                   cudaMemcpyHostToDevice, stream()));
  }
}

void CudaEvaluator::upload(const Plaintext& host, CudaCiphertext& device) const {
  take_upload(std::span(&host.poly, 1), host.level, host.scale, device);
  FHE_CUDA_CHECK(cudaMemcpyAsync(device.part(0), host.poly.data(), device.part_words() * 8, cudaMemcpyHostToDevice,
                                 stream()));
}

void CudaEvaluator::upload(const Plaintext& host, CudaCiphertext& device, cuda::StagedUploader& staging) const {
  take_upload(std::span(&host.poly, 1), host.level, host.scale, device);
  staging.upload(device.part(0), device.part_words() * 8, [&](std::span<std::uint8_t> bytes) {
    std::memcpy(bytes.data(), host.poly.data(), bytes.size());
  });
}

Ciphertext CudaEvaluator::download(const CudaCiphertext& device) const {
  Ciphertext host{{}, device.level, device.scale};
  for (std::size_t p = 0; p < device.parts; ++p) {
    RnsPoly poly(static_cast<std::size_t>(device.level), device.rows(), n_, true);
    FHE_CUDA_CHECK(cudaMemcpyAsync(poly.data(), device.part(p), device.part_words() * 8,
                                   cudaMemcpyDeviceToHost, stream()));
    host.parts.push_back(std::move(poly));
  }
  synchronize();
  return host;
}

void CudaEvaluator::copy(const CudaCiphertext& from, CudaCiphertext& to) const {
  if (from.max_rows() == qp_rows_) {
    check_extended(to, "copy", from.parts);
  } else {
    check_output(to, "copy");
  }
  if (&from == &to) return;
  to.parts = from.parts;
  to.level = from.level;
  to.scale = from.scale;
  FHE_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.parts * from.part_words() * 8,
                                 cudaMemcpyDeviceToDevice, stream()));
}

const cuda::LevelConstants& CudaEvaluator::level_constants(int level) const {
  engine_.preset().active_q_rows(level);  // validates
  return levels_.at(static_cast<std::size_t>(level));
}

const cuda::DeviceSwitchKey& CudaEvaluator::galois_key(std::uint64_t element) const {
  const auto it = keys_->galois.find(element);
  if (it == keys_->galois.end()) {
    engine_.galois_key(element);  // throws the engine's message when it was never generated
    throw InvalidArgument("CudaEvaluator: the Galois key of element " + std::to_string(element) +
                          " was generated after the evaluator was built; build a new CudaEvaluator");
  }
  return it->second;
}

// ---- key switching --------------------------------------------------------

std::optional<ntt::gpu::ForwardRegion> CudaEvaluator::extend(const std::uint64_t* input, int level,
                                                             bool leave_region) const {
  const cuda::LevelConstants& c = level_constants(level);
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  const std::size_t ext_rows = rows + p_rows_;
  // The input's rows to coefficient form in the workspace; the input stays
  // in NTT form (the digits' own rows are read from it).
  const ntt::RowRange q_range{static_cast<std::size_t>(level), rows};
  if (!ntt::inverse_batch_out_of_place(plan_, input, coefficients_.data(), q_range, 1, {stream()})) {
    FHE_CUDA_CHECK(cudaMemcpyAsync(coefficients_.data(), input, rows * n_ * 8, cudaMemcpyDeviceToDevice, stream()));
    plan_.inverse(coefficients_.data(), q_range, {stream()});
  }
  // Every digit's ModUp in one launch (grid.y = digit), to the rows
  // other than its own.
  std::uint64_t* ext = extended_.data();
  cuda::launch_conversion(c.mod_up, 1, coefficients_.data(), 0, ext, ext_rows * n_, c.digit_count,
                          static_cast<int>(ext_rows), c.max_digit_rows, log_n_, stream());
  // All digits' extended polynomials in one batched transform (one launch
  // per pass instead of one per digit and pass), skipping each digit's own
  // rows: they are the input's, in NTT form already.
  const ntt::RowRange ext_range{static_cast<std::size_t>(level), ext_rows};
  const auto digits = static_cast<std::size_t>(c.digit_count);
  if (leave_region && c.digit_count >= cuda::kMinFusedDigits && c.digit_count <= cuda::kMaxFusedDigits) {
    auto region = ntt::forward_batch_before_region(plan_, ext, ext_range, digits, {stream()}, c.own_row_starts);
    if (region) return region;
  }
  ntt::forward_batch_skipping(plan_, ext, ext_range, digits, c.own_row_starts, {stream()});
  cuda::launch_copy_own_rows(input, ext, c.own_row_starts, c.digit_count, rows, ext_rows, log_n_, stream());
  return std::nullopt;
}

void CudaEvaluator::mod_down_parts(int level, std::span<const ModDownPart> parts, std::uint64_t* p_rows) const {
  static_assert(2 * kHoistedRotationsPerLaunch <= cuda::kMaxScaleDownItems);
  const cuda::LevelConstants& c = level_constants(level);
  const auto first = static_cast<std::size_t>(level);
  const std::size_t rows = q_rows_ - first, count = parts.size();
  std::uint64_t* conv = converted_.data();
  // Every part's P rows to coefficient form in one batch, convert to the Q
  // rows in one launch, back to NTT in one batch, finish in one launch.
  plan_.inverse_batch(p_rows, {q_rows_, p_rows_}, count, {stream()});
  cuda::launch_conversion(c.mod_down.conversion, p_rows, p_rows_ * n_, conv, rows * n_, static_cast<int>(count),
                          log_n_, stream());
  cuda::ScaleDownItem items[cuda::kMaxScaleDownItems];
  for (std::size_t i = 0; i < count; ++i) {
    items[i] = {parts[i].x, conv + i * rows * n_, parts[i].out, parts[i].addend};
  }
  finish_scale_down(c.mod_down, conv, {first, rows}, items, count);
}

void CudaEvaluator::finish_scale_down(const cuda::DeviceScaleDown& scale_down, std::uint64_t* converted,
                                      ntt::RowRange kept, const cuda::ScaleDownItem* items,
                                      std::size_t count) const {
  // The forward transform's last pass fused with the finish where the plan
  // ends in the shared-memory region (every backend but radix2_indexed).
  if (const auto region = ntt::forward_batch_before_region(plan_, converted, kept, count, {stream()})) {
    cuda::launch_region_scale_down(*region, scale_down, items, static_cast<int>(count), stream());
    return;
  }
  plan_.forward_batch(converted, kept, count, {stream()});
  cuda::launch_scale_down_finish(scale_down, items, static_cast<int>(count), kept.first, log_n_, moduli_.data(),
                                 stream());
}

// ---- operations -------------------------------------------------------------

namespace {

void check_binary(const CudaCiphertext& a, const CudaCiphertext& b, const char* op, const CkksEngine& engine,
                  bool same_scale) {
  if (a.level != b.level) {
    throw InvalidArgument(std::string(op) + ": operands at levels " + std::to_string(a.level) + " and " +
                          std::to_string(b.level) + " (preset " + engine.preset().name +
                          "); drop_level the one at the lower level first");
  }
  if (same_scale && std::fabs(a.scale - b.scale) > 1e-9 * std::max(a.scale, b.scale)) {
    throw InvalidArgument(std::string(op) + ": operand scales differ (" + where(engine, op, a.level) + ")");
  }
}

void check_parts(const CudaCiphertext& a, std::size_t low, std::size_t high, const char* op,
                 const CkksEngine& engine) {
  if (a.parts < low || a.parts > high) {
    throw InvalidArgument(std::string(op) + ": a ciphertext of " + std::to_string(a.parts) + " parts (" +
                          where(engine, op, a.level) + ")");
  }
}

}  // namespace

void CudaEvaluator::add(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "add", engine_);
  check_parts(b, 2, 3, "add", engine_);
  check_binary(a, b, "add", engine_, true);
  if (a.max_rows() == qp_rows_ || b.max_rows() == qp_rows_) {
    // Two extended sums (accumulate_rotations) add like ciphertexts over their rows.
    check_extended(a, "add");
    check_extended(b, "add");
    check_extended(out, "add", std::max(a.parts, b.parts));
  } else {
    check_output(out, "add");
  }
  const CudaCiphertext& longer = a.parts >= b.parts ? a : b;
  const CudaCiphertext& shorter = a.parts >= b.parts ? b : a;
  const std::size_t common = shorter.parts, total = longer.parts;
  const int level = a.level;
  const double scale = longer.scale;
  if (&out != &longer && total > common) {
    // The extra part of the longer operand is copied as is.
    FHE_CUDA_CHECK(cudaMemcpyAsync(out.data() + common * longer.part_words(), longer.part(common),
                                   (total - common) * longer.part_words() * 8, cudaMemcpyDeviceToDevice,
                                   stream()));
  }
  out.parts = total;
  out.level = level;
  out.scale = scale;
  cuda::launch_elementwise(cuda::Elementwise::add, longer.data(), shorter.data(), out.data(),
                           {static_cast<std::size_t>(level), longer.rows(), common, log_n_}, common,
                           moduli_.data(), stream());
}

void CudaEvaluator::sub(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  check_parts(a, 2, 2, "sub", engine_);
  check_parts(b, 2, 2, "sub", engine_);
  check_binary(a, b, "sub", engine_, true);
  check_output(out, "sub");
  const int level = a.level;
  const double scale = a.scale;
  // a - b = a + (-b) word for word (sub_mod(x, y) == add_mod(x, neg_mod(y))).
  cuda::launch_elementwise(cuda::Elementwise::sub, a.data(), b.data(), out.data(),
                           {static_cast<std::size_t>(level), a.rows(), 2, log_n_}, 2, moduli_.data(), stream());
  out.parts = 2;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::negate(const CudaCiphertext& a, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "negate", engine_);
  check_output(out, "negate");
  const std::size_t parts = a.parts;
  const int level = a.level;
  const double scale = a.scale;
  cuda::launch_elementwise(cuda::Elementwise::negate, a.data(), nullptr, out.data(),
                           {static_cast<std::size_t>(level), a.rows(), parts, log_n_}, 0, moduli_.data(),
                           stream());
  out.parts = parts;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::multiply_plain(const CudaCiphertext& a, const CudaCiphertext& plain, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "multiply_plain", engine_);
  check_parts(plain, 1, 1, "multiply_plain", engine_);
  check_binary(a, plain, "multiply_plain", engine_, false);
  check_output(out, "multiply_plain");
  const std::size_t parts = a.parts;
  const int level = a.level;
  const double scale = a.scale * plain.scale;
  cuda::launch_elementwise(cuda::Elementwise::multiply, a.data(), plain.data(), out.data(),
                           {static_cast<std::size_t>(level), a.rows(), parts, log_n_}, 1, moduli_.data(),
                           stream());
  out.parts = parts;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::multiply(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const {
  check_parts(a, 2, 2, "multiply", engine_);
  check_parts(b, 2, 2, "multiply", engine_);
  check_binary(a, b, "multiply", engine_, false);
  check_output(out, "multiply");
  const int level = a.level;
  const double scale = a.scale * b.scale;
  cuda::launch_tensor(a.data(), b.data(), out.data(), {static_cast<std::size_t>(level), a.rows(), 3, log_n_},
                      moduli_.data(), stream());
  out.parts = 3;
  out.level = level;
  out.scale = scale;
}

void CudaEvaluator::relinearize(const CudaCiphertext& a, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "relinearize", engine_);
  check_output(out, "relinearize");
  if (a.parts == 2) return copy(a, out);
  const int level = a.level;
  const auto first = static_cast<std::size_t>(level);
  const std::size_t rows = a.rows(), ext_rows = rows + p_rows_;
  const std::uint64_t *c0 = a.part(0), *c1 = a.part(1);  // out may alias a
  const auto region = extend(a.part(2), level, true);
  // The key inner product (Q rows of IP_b, of IP_a, then the P rows of
  // both), then its ModDown plus c0 and c1.
  const cuda::LevelConstants& c = level_constants(level);
  std::uint64_t* acc = accumulators_.data();
  std::uint64_t *acc_a = acc + rows * n_, *p_block = acc + 2 * rows * n_;
  const std::uint8_t* key = keys_->relinearization.bytes.data();
  if (region) {
    // No table: relinearization's term (c0 and c1 join at the ModDown).
    cuda::launch_region_key_product(*region, {key, nullptr, nullptr}, extended_sum_args(a, 2),
                                    {acc, acc_a, p_block, false}, stream());
  } else {
    cuda::launch_inner_product(extended_.data(), c.digit_count, key, keys_->switch_key_layout, c.first_digit, acc,
                               acc_a, p_block, first, rows, ext_rows, log_n_, moduli_.data(), stream());
  }
  out.parts = 2;
  out.level = level;
  out.scale = a.scale;
  const ModDownPart parts[2] = {{acc, out.part(0), c0}, {acc_a, out.part(1), c1}};
  mod_down_parts(level, parts, p_block);
}

void CudaEvaluator::multiply_relinearize(const CudaCiphertext& a, const CudaCiphertext& b,
                                         CudaCiphertext& out) const {
  multiply(a, b, out);
  relinearize(out, out);
}

void CudaEvaluator::rescale(const CudaCiphertext& a, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "rescale", engine_);
  check_output(out, "rescale");
  if (&a == &out) throw InvalidArgument("rescale: the output must not alias the input");
  const Preset& preset = engine_.preset();
  check_rescalable(preset, a.level, "rescale", "ciphertext");
  const cuda::LevelConstants& c = level_constants(a.level);
  const auto first = static_cast<std::size_t>(a.level);
  const std::size_t kept = a.rows() - 1;
  std::uint64_t* dropped = dropped_.data();
  std::uint64_t* conv = converted_.data();
  out.parts = a.parts;
  out.level = a.level + 1;
  out.scale = a.scale / static_cast<double>(preset.q_primes[first]);
  cuda::ScaleDownItem items[cuda::kMaxScaleDownItems];
  for (std::size_t p = 0; p < a.parts; ++p) items[p] = {a.part(p) + n_, conv + p * kept * n_, out.part(p), nullptr};
  // RnsScaleDown::apply step for step: each part's dropped row (id level,
  // its first) to coefficient form, the centred conversion to the kept rows,
  // back to NTT form, the finish.
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(dropped, n_ * 8, a.data(), a.part_words() * 8, n_ * 8, a.parts,
                                   cudaMemcpyDeviceToDevice, stream()));
  plan_.inverse_batch(dropped, {first, 1}, a.parts, {stream()});
  // The conversion of one dropped prime is a centred lift, which the kept
  // rows' first forward pass applies as it loads the dropped row: the kept
  // rows are not written untransformed and read back.
  ntt::gpu::CentredLift lift = c.rescale_lift;
  lift.rows = dropped;
  const ntt::RowRange kept_rows{first + 1, kept};
  if (const auto region =
          ntt::forward_batch_before_region(plan_, conv, kept_rows, a.parts, {stream()}, nullptr, &lift)) {
    cuda::launch_region_scale_down(*region, c.rescale, items, static_cast<int>(a.parts), stream());
    return;
  }
  cuda::launch_conversion(c.rescale.conversion, dropped, n_, conv, kept * n_, static_cast<int>(a.parts), log_n_,
                          stream());
  finish_scale_down(c.rescale, conv, kept_rows, items, a.parts);
}

void CudaEvaluator::drop_level(const CudaCiphertext& a, int target_level, CudaCiphertext& out) const {
  check_parts(a, 2, 3, "drop_level", engine_);
  check_output(out, "drop_level");
  engine_.preset().active_q_rows(target_level);  // validates
  if (target_level < a.level) {
    throw InvalidArgument("drop_level: target level " + std::to_string(target_level) +
                          " is below the ciphertext's level " + std::to_string(a.level));
  }
  if (target_level == a.level) return copy(a, out);
  if (&a == &out) throw InvalidArgument("drop_level: the output must not alias the input");
  out.parts = a.parts;
  out.level = target_level;
  out.scale = a.scale;
  cuda::launch_copy_rows(a.data(), a.rows(), static_cast<std::size_t>(target_level - a.level), out.data(),
                         out.rows(), a.parts, log_n_, stream());
}

namespace {

// The kernel term list of keys[start, start + batch) (null: step 0) times
// plains (empty, or null entries: times 1).
void fill_terms(const std::vector<const cuda::DeviceSwitchKey*>& keys,
                const std::vector<const CudaBlockPlain*>& plains, std::size_t start, std::size_t batch,
                cuda::RotationTerm* terms) {
  for (std::size_t t = 0; t < batch; ++t) {
    const cuda::DeviceSwitchKey* key = keys[start + t];
    const CudaBlockPlain* plain = plains.empty() ? nullptr : plains[start + t];
    terms[t] = {key ? key->bytes.data() : nullptr, key ? key->galois_table.data() : nullptr,
                plain ? plain->words.data() : nullptr, plain ? plain->block_log : 0};
  }
}

}  // namespace

void CudaEvaluator::apply_galois(const CudaCiphertext& a, const std::vector<std::uint64_t>& elements,
                                 std::span<CudaCiphertext> outs, const char* op) const {
  check_parts(a, 2, 2, op, engine_);
  if (outs.size() != elements.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs for " +
                          std::to_string(elements.size()) + " steps");
  }
  for (const CudaCiphertext& out : outs) {
    check_output(out, op);
    if (&out == &a) throw InvalidArgument(std::string(op) + ": an output aliases the input");
  }
  const PreparedRotations prepared = prepare_rotations(a, elements, true);
  const std::vector<const cuda::DeviceSwitchKey*>& keys = prepared.keys;
  std::vector<const cuda::DeviceSwitchKey*> switched_keys;
  std::vector<CudaCiphertext*> switched_outs;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!keys[i]) {
      copy(a, outs[i]);
      continue;
    }
    switched_keys.push_back(keys[i]);
    switched_outs.push_back(&outs[i]);
  }
  // Up to kHoistedRotationsPerLaunch rotations per key-term launch, which
  // reads the digits once for all of them: each rotation's
  // (IP_b + P c0 permuted, IP_a) over QP into the rotations workspace, the
  // P rows of all of them first (back to back), then their Q rows. Then one
  // ModDown for all of them.
  const std::size_t rows = a.rows(), p_words = 2 * p_rows_ * n_;
  for (std::size_t start = 0; start < switched_keys.size(); start += kHoistedRotationsPerLaunch) {
    const std::size_t batch = std::min(kHoistedRotationsPerLaunch, switched_keys.size() - start);
    std::uint64_t *outs_b[kHoistedRotationsPerLaunch], *outs_a[kHoistedRotationsPerLaunch],
        *outs_p[kHoistedRotationsPerLaunch];
    ModDownPart parts[2 * kHoistedRotationsPerLaunch];
    std::uint64_t* q_block = rotations_.data() + batch * p_words;
    for (std::size_t t = 0; t < batch; ++t) {
      outs_p[t] = rotations_.data() + t * p_words;
      outs_b[t] = q_block + 2 * t * rows * n_;
      outs_a[t] = outs_b[t] + rows * n_;
      CudaCiphertext& out = *switched_outs[start + t];
      out.parts = 2;
      out.level = a.level;
      out.scale = a.scale;
      parts[2 * t] = {outs_b[t], out.part(0), nullptr};
      parts[2 * t + 1] = {outs_a[t], out.part(1), nullptr};
    }
    if (prepared.region) {  // the one rotation, fused with the ModUp's last pass
      cuda::RotationTerm term;
      fill_terms(switched_keys, {}, start, 1, &term);
      cuda::launch_region_key_product(*prepared.region, term, extended_sum_args(a),
                                      {outs_b[0], outs_a[0], outs_p[0], false}, stream());
    } else {
      launch_rotations(a, switched_keys, start, batch, outs_b, outs_a, outs_p);
    }
    mod_down_parts(a.level, std::span<const ModDownPart>(parts, 2 * batch), rotations_.data());
  }
}

void CudaEvaluator::rotate(const CudaCiphertext& a, int step, CudaCiphertext& out) const {
  apply_galois(a, {engine_.galois_element_for_step(step)}, std::span<CudaCiphertext>(&out, 1), "rotate");
}

void CudaEvaluator::conjugate(const CudaCiphertext& a, CudaCiphertext& out) const {
  apply_galois(a, {conjugation_galois_element(log_n_)}, std::span<CudaCiphertext>(&out, 1), "conjugate");
}

void CudaEvaluator::rotate_many_by_steps(const CudaCiphertext& a, const std::vector<int>& steps,
                                         std::span<CudaCiphertext> outs) const {
  apply_galois(a, engine_.galois_elements_for_steps(steps), outs, "rotate_many_by_steps");
}

void CudaEvaluator::decrypt(const CudaCiphertext& a, CudaCiphertext& plain) const {
  check_parts(a, 2, 3, "decrypt", engine_);
  check_output(plain, "decrypt");
  if (&a == &plain) throw InvalidArgument("decrypt: the output must not alias the input");
  plain.parts = 1;
  plain.level = a.level;
  plain.scale = a.scale;
  cuda::launch_decrypt(a.data(), a.parts, keys_->secret.data(), plain.data(), static_cast<std::size_t>(a.level),
                       a.rows(), log_n_, moduli_.data(), stream());
}

Plaintext CudaEvaluator::decrypt(const CudaCiphertext& a) const {
  CudaCiphertext plain = make_ciphertext();
  decrypt(a, plain);
  Ciphertext host = download(plain);
  return Plaintext{std::move(host.parts[0]), host.level, host.scale};
}

// ---- sums of rotations with one ModDown ------------------------------------

CudaEvaluator::PreparedRotations CudaEvaluator::prepare_rotations(const CudaCiphertext& a,
                                                                 const std::vector<std::uint64_t>& elements,
                                                                 bool fuse_single) const {
  PreparedRotations prepared;
  bool any_switch = false;
  for (std::uint64_t element : elements) {
    prepared.keys.push_back(element == 1 ? nullptr : &galois_key(element));
    any_switch = any_switch || prepared.keys.back();
  }
  if (any_switch) prepared.region = extend(a.part(1), a.level, fuse_single && elements.size() == 1);
  return prepared;
}

cuda::ExtendedSumArgs CudaEvaluator::extended_sum_args(const CudaCiphertext& a, std::size_t decomposed_part) const {
  const cuda::LevelConstants& c = level_constants(a.level);
  cuda::ExtendedSumArgs args;
  args.extended = extended_.data();
  args.digits = c.digit_count;
  args.first_digit = c.first_digit;
  args.key_layout = keys_->switch_key_layout;
  args.c0 = a.part(0);
  args.c1 = a.part(1);
  args.decomposed = a.part(decomposed_part);
  args.p_mod_q = p_mod_q_.data();
  args.p_mod_q_shoup = p_mod_q_shoup_.data();
  args.first_row = static_cast<std::size_t>(a.level);
  args.q_rows = a.rows();
  args.rows = a.rows() + p_rows_;
  args.log_n = log_n_;
  args.moduli = moduli_.data();
  return args;
}

void CudaEvaluator::add_terms(const PreparedRotations& prepared, const cuda::ExtendedSumArgs& args,
                              const std::vector<const CudaBlockPlain*>& plains, bool accumulate,
                              CudaCiphertext& sum) const {
  if (prepared.region) {  // one rotation (a BSGS giant step), fused with the ModUp's last pass
    cuda::RotationTerm term;
    fill_terms(prepared.keys, plains, 0, 1, &term);
    cuda::launch_region_key_product(*prepared.region, term, args, {sum.part(0), sum.part(1), nullptr, accumulate},
                                    stream());
  } else {
    launch_terms(args, prepared.keys, plains, accumulate, sum);
  }
}

// Every term of `keys` x `plains` into `sum` (already shaped: 2 parts at
// the input's level), in launches of kMaxRotationTerms.
void CudaEvaluator::launch_terms(cuda::ExtendedSumArgs args, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                                 const std::vector<const CudaBlockPlain*>& plains, bool accumulate,
                                 CudaCiphertext& sum) const {
  args.sum_b = sum.part(0);
  args.sum_a = sum.part(1);
  args.accumulate = accumulate;
  for (std::size_t start = 0; start < keys.size(); start += cuda::kMaxRotationTerms) {
    const std::size_t batch = std::min<std::size_t>(cuda::kMaxRotationTerms, keys.size() - start);
    cuda::RotationTerm terms[cuda::kMaxRotationTerms];
    fill_terms(keys, plains, start, batch, terms);
    cuda::launch_rotation_terms(terms, static_cast<int>(batch), args, stream());
    args.accumulate = true;
  }
}

void CudaEvaluator::accumulate_rotations(const CudaCiphertext& a, const std::vector<int>& steps,
                                         const std::vector<const CudaBlockPlain*>& extended_plains,
                                         CudaCiphertext& sum) const {
  const char* op = "accumulate_rotations";
  check_parts(a, 2, 2, op, engine_);
  check_extended(sum, op, 2);
  if (steps.empty() || steps.size() != extended_plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(steps.size()) + " steps and " +
                          std::to_string(extended_plains.size()) + " plaintexts (one per step, at least one)");
  }
  const int level = a.level;
  auto plain_scale = [](const CudaBlockPlain* plain) { return plain ? plain->scale : 1.0; };
  const double scale = a.scale * plain_scale(extended_plains.front());
  for (const CudaBlockPlain* plain : extended_plains) {
    if ((plain && (plain->level != level || plain->rows != a.rows() + p_rows_)) ||
        std::fabs(a.scale * plain_scale(plain) - scale) > 1e-9 * scale) {
      throw InvalidArgument(std::string(op) + ": plaintexts must be uploaded encode_extended plaintexts of one "
                            "scale at " + where(engine_, op, level));
    }
  }
  if (sum.parts != 0 && (sum.parts != 2 || sum.level != level || std::fabs(sum.scale - scale) > 1e-9 * scale)) {
    throw InvalidArgument(std::string(op) + ": the sum is not an extended sum of this level and scale (" +
                          where(engine_, op, level) + ")");
  }
  const PreparedRotations prepared = prepare_rotations(a, engine_.galois_elements_for_steps(steps), true);
  const bool accumulate = sum.parts != 0;
  sum.parts = 2;
  sum.level = level;
  sum.scale = scale;
  add_terms(prepared, extended_sum_args(a), extended_plains, accumulate, sum);
}

void CudaEvaluator::accumulate_extended_rotation(const CudaCiphertext& extended, int step, CudaCiphertext& scratch,
                                                 CudaCiphertext& sum) const {
  const char* op = "accumulate_extended_rotation";
  if (&sum == &extended || &scratch == &extended || &scratch == &sum) {
    // The term's kernel reads extended.c0 at permuted positions while it writes the sum.
    throw InvalidArgument(std::string(op) + ": the sum, the rotated term and the scratch must be distinct buffers");
  }
  check_extended(extended, op, 2);
  check_extended(sum, op, 2);
  check_output(scratch, op);
  const int level = extended.level;
  if (extended.parts != 2) throw InvalidArgument(std::string(op) + ": a 2-part extended sum was expected");
  if (sum.parts != 0 && (sum.parts != 2 || sum.level != level ||
                         std::fabs(sum.scale - extended.scale) > 1e-9 * extended.scale)) {
    throw InvalidArgument(std::string(op) + ": the sum is not an extended sum of this level and scale (" +
                          where(engine_, op, level) + ")");
  }
  const std::uint64_t element = engine_.galois_element_for_step(step);
  if (element == 1) {
    if (sum.parts == 0) {
      copy(extended, sum);
    } else {
      add(sum, extended, sum);
    }
    return;
  }
  galois_key(element);  // a missing key fails before any work
  scratch.parts = 2;
  scratch.level = level;
  scratch.scale = extended.scale;
  mod_down_copied(extended, 1, 1, scratch);  // c1 only
  const PreparedRotations prepared = prepare_rotations(scratch, {element}, true);
  // The key switch of c1 with extended.c0 as the term's c0 on every row,
  // times 1 instead of P.
  cuda::ExtendedSumArgs args = extended_sum_args(scratch);
  args.c0 = extended.part(0);
  args.q_rows = args.rows;
  args.p_mod_q = one_mod_qp_.data();
  args.p_mod_q_shoup = one_mod_qp_shoup_.data();
  const bool accumulate = sum.parts != 0;
  sum.parts = 2;
  sum.level = level;
  sum.scale = extended.scale;
  add_terms(prepared, args, {nullptr}, accumulate, sum);
}

void CudaEvaluator::rotate_many_extended(const CudaCiphertext& a, const std::vector<int>& steps,
                                         std::span<CudaCiphertext> outs) const {
  const char* op = "rotate_many_extended";
  check_parts(a, 2, 2, op, engine_);
  if (outs.size() != steps.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs for " +
                          std::to_string(steps.size()) + " steps");
  }
  for (const CudaCiphertext& out : outs) check_extended(out, op, 2);
  const std::vector<const cuda::DeviceSwitchKey*> keys =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), false).keys;
  for (std::size_t start = 0; start < steps.size(); start += cuda::kMaxRotationTerms) {
    const std::size_t batch = std::min<std::size_t>(cuda::kMaxRotationTerms, steps.size() - start);
    std::uint64_t* outs_b[cuda::kMaxRotationTerms];
    std::uint64_t* outs_a[cuda::kMaxRotationTerms];
    for (std::size_t t = 0; t < batch; ++t) {
      CudaCiphertext& out = outs[start + t];
      out.parts = 2;
      out.level = a.level;
      out.scale = a.scale;
      outs_b[t] = out.part(0);
      outs_a[t] = out.part(1);
    }
    launch_rotations(a, keys, start, batch, outs_b, outs_a, nullptr);
  }
}

void CudaEvaluator::launch_rotations(const CudaCiphertext& a, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                                     std::size_t start, std::size_t batch, std::uint64_t* const* outs_b,
                                     std::uint64_t* const* outs_a, std::uint64_t* const* outs_p) const {
  cuda::RotationTerm terms[cuda::kMaxRotationTerms];
  fill_terms(keys, {}, start, batch, terms);
  cuda::launch_rotation_outputs(terms, static_cast<int>(batch), outs_b, outs_a, outs_p, extended_sum_args(a),
                                stream());
}

namespace {

// What the plaintext-weighted sums need of a plaintext of either storage.
bool plain_matches(const CudaCiphertext& plain, const CudaCiphertext& first_term) {
  return plain.parts == 1 && plain.level == first_term.level && plain.max_rows() == first_term.max_rows();
}
bool plain_matches(const CudaBlockPlain& plain, const CudaCiphertext& first_term) {
  return plain.level == first_term.level && plain.rows == first_term.rows();
}
const std::uint64_t* plain_words(const CudaCiphertext& plain) { return plain.data(); }
const std::uint64_t* plain_words(const CudaBlockPlain& plain) { return plain.words.data(); }
int plain_block_log(const CudaCiphertext&) { return 0; }
int plain_block_log(const CudaBlockPlain& plain) { return plain.block_log; }

}  // namespace

template <typename Plain>
double CudaEvaluator::check_plain_sum(std::span<const CudaCiphertext* const> terms,
                                     std::span<const Plain* const> plains, const CudaCiphertext& out,
                                     const char* op) const {
  if (terms.empty() || terms.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(terms.size()) + " terms and " +
                          std::to_string(plains.size()) + " plaintexts (one per term, at least one)");
  }
  const CudaCiphertext& first = *terms.front();
  const double scale = first.scale * plains.front()->scale;
  constexpr bool blocks = std::is_same_v<Plain, CudaBlockPlain>;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    if (terms[t]->parts != 2 || terms[t]->level != first.level || terms[t]->max_rows() != first.max_rows() ||
        !plain_matches(*plains[t], first) || (blocks && first.max_rows() != qp_rows_) ||
        std::fabs(terms[t]->scale * plains[t]->scale - scale) > 1e-9 * scale) {
      throw InvalidArgument(std::string(op) + ": 2-part terms and 1-part plaintexts of one kind, level and "
                            "product scale (" + where(engine_, op, first.level) + ")");
    }
  }
  if (first.max_rows() == qp_rows_) {
    check_extended(out, op, 2);
  } else {
    check_output(out, op);
  }
  return scale;
}

void CudaEvaluator::multiply_plain_sum(const std::vector<const CudaCiphertext*>& terms,
                                       const std::vector<const CudaCiphertext*>& plains, CudaCiphertext& out) const {
  plain_sums(terms, std::span<const std::vector<const CudaCiphertext*>>(&plains, 1),
             std::span<CudaCiphertext>(&out, 1), "multiply_plain_sum");
}

void CudaEvaluator::multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                                        std::span<const std::vector<const CudaCiphertext*>> plains,
                                        std::span<CudaCiphertext> outs) const {
  plain_sums(terms, plains, outs, "multiply_plain_sums");
}

void CudaEvaluator::multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                                        std::span<const std::vector<const CudaBlockPlain*>> plains,
                                        std::span<CudaCiphertext> outs) const {
  plain_sums(terms, plains, outs, "multiply_plain_sums");
}

CudaBlockPlain CudaEvaluator::upload_blocks(const Plaintext& host) const {
  cuda::DeviceGuard guard(device_);
  cuda::StagedUploader staging;
  CudaBlockPlain device = upload_blocks(host, staging);
  staging.finish();
  return device;
}

CudaBlockPlain CudaEvaluator::upload_blocks(const Plaintext& host, cuda::StagedUploader& staging) const {
  const ntt::RowRange rows = schedules_.at(host.level).extended_rows;
  if (host.poly.first_row() != rows.first || host.poly.row_count() != rows.count || !host.poly.ntt_form()) {
    throw InvalidArgument("upload_blocks: an encode_extended plaintext was expected (" +
                          where(engine_, "upload_blocks", host.level) + ")");
  }
  const std::span<const std::uint64_t> words(host.poly.data(), rows.count * n_);
  CudaBlockPlain device;
  device.rows = rows.count;
  device.block_log = constant_block_log(words, n_);
  device.level = host.level;
  device.scale = host.scale;
  const std::size_t block_count = words.size() >> device.block_log;
  cuda::DeviceGuard guard(device_);  // allocates, as make_extended does
  device.words = cuda::DeviceBuffer<std::uint64_t>(block_count, "block plaintext");
  staging.upload(device.words.data(), block_count * 8,
                 [&](std::span<std::uint8_t> bytes) { block_words(words, device.block_log, bytes); });
  return device;
}

template <typename Plain>
void CudaEvaluator::plain_sums(std::span<const CudaCiphertext* const> terms,
                               std::span<const std::vector<const Plain*>> plains, std::span<CudaCiphertext> outs,
                               const char* op) const {
  if (outs.empty() || outs.size() != plains.size()) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(outs.size()) + " outputs and " +
                          std::to_string(plains.size()) + " plaintext lists (one per output, at least one)");
  }
  // Every output checked before any changes; a later launch still reads
  // the operands, so no output may be one of them (any output's plaintext).
  std::vector<double> scales;
  for (std::size_t j = 0; j < outs.size(); ++j) {
    scales.push_back(check_plain_sum<Plain>(terms, plains[j], outs[j], op));
  }
  auto is_output = [&](const void* x) {
    return std::any_of(outs.begin(), outs.end(), [x](const CudaCiphertext& out) { return &out == x; });
  };
  bool aliased = std::any_of(terms.begin(), terms.end(), is_output);
  for (const auto& list : plains) aliased = aliased || std::any_of(list.begin(), list.end(), is_output);
  if (aliased) throw InvalidArgument(std::string(op) + ": an output aliases a term or plaintext");
  const int level = terms.front()->level;
  const std::size_t rows = terms.front()->rows();
  for (std::size_t j = 0; j < outs.size(); ++j) {
    outs[j].parts = 2;
    outs[j].level = level;
    outs[j].scale = scales[j];
  }
  // Outputs in groups of kMaxProductOutputs, each ONE pass over the terms in
  // launches of kMaxProductTerms (the first writes, the rest accumulate).
  for (std::size_t first_out = 0; first_out < outs.size(); first_out += cuda::kMaxProductOutputs) {
    const std::size_t out_count = std::min<std::size_t>(cuda::kMaxProductOutputs, outs.size() - first_out);
    for (std::size_t first_term = 0; first_term < terms.size(); first_term += cuda::kMaxProductTerms) {
      const std::size_t term_count = std::min<std::size_t>(cuda::kMaxProductTerms, terms.size() - first_term);
      cuda::ProductSums sums;
      sums.term_count = static_cast<int>(term_count);
      sums.output_count = static_cast<int>(out_count);
      for (std::size_t t = 0; t < term_count; ++t) sums.terms[t] = terms[first_term + t]->data();
      for (std::size_t j = 0; j < out_count; ++j) {
        sums.outs[j] = outs[first_out + j].data();
        for (std::size_t t = 0; t < term_count; ++t) {
          const Plain& plain = *plains[first_out + j][first_term + t];
          sums.plains[j][t] = plain_words(plain);
          sums.plain_block_logs[j][t] = static_cast<std::uint8_t>(plain_block_log(plain));
        }
      }
      cuda::launch_products_sums(sums, first_term > 0, static_cast<std::size_t>(level), rows, log_n_,
                                 moduli_.data(), stream());
    }
  }
}

void CudaEvaluator::mod_down(const CudaCiphertext& extended_sum, CudaCiphertext& out) const {
  check_extended(extended_sum, "mod_down");
  check_output(out, "mod_down");
  if (extended_sum.parts != 2) throw InvalidArgument("mod_down: a 2-part extended sum was expected");
  out.parts = 2;
  out.level = extended_sum.level;
  out.scale = extended_sum.scale;
  mod_down_copied(extended_sum, 0, 2, out);
}

void CudaEvaluator::mod_down_rescale(const CudaCiphertext& extended_sum, CudaCiphertext& out) const {
  const char* op = "mod_down_rescale";
  check_extended(extended_sum, op);
  check_output(out, op);
  if (extended_sum.parts != 2) throw InvalidArgument(std::string(op) + ": a 2-part extended sum was expected");
  const Preset& preset = engine_.preset();
  const int level = extended_sum.level;
  check_rescalable(preset, level, op, "extended sum");
  const cuda::LevelConstants& c = level_constants(level);
  const auto first = static_cast<std::size_t>(level);
  const std::size_t kept = q_rows_ - first - 1, sources = p_rows_ + 1;
  const std::size_t part_pitch = extended_sum.part_words() * 8, row = n_ * 8;
  // In accumulators_: both parts' P rows, both parts' row `level` (each set
  // back to back, so one inverse call transforms it), then per part the
  // conversion's sources in the schedule's order (P rows, row `level`).
  if ((4 * p_rows_ + 4) * n_ > accumulators_.size()) throw std::logic_error("mod_down_rescale: workspace too small");
  std::uint64_t* p_rows = accumulators_.data();
  std::uint64_t* level_rows = p_rows + 2 * p_rows_ * n_;
  std::uint64_t* source = level_rows + 2 * n_;
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(p_rows, p_rows_ * row, extended_sum.part(0) + (kept + 1) * n_, part_pitch,
                                   p_rows_ * row, 2, cudaMemcpyDeviceToDevice, stream()));
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(level_rows, row, extended_sum.part(0), part_pitch, row, 2,
                                   cudaMemcpyDeviceToDevice, stream()));
  plan_.inverse_batch(p_rows, {q_rows_, p_rows_}, 2, {stream()});
  plan_.inverse_batch(level_rows, {first, 1}, 2, {stream()});
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(source, sources * row, p_rows, p_rows_ * row, p_rows_ * row, 2,
                                   cudaMemcpyDeviceToDevice, stream()));
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(source + p_rows_ * n_, sources * row, level_rows, row, row, 2,
                                   cudaMemcpyDeviceToDevice, stream()));
  out.parts = 2;
  out.level = level + 1;
  out.scale = extended_sum.scale / static_cast<double>(preset.q_primes[first]);
  std::uint64_t* conv = converted_.data();
  cuda::launch_conversion(c.mod_down_rescale.conversion, source, sources * n_, conv, kept * n_, 2, log_n_, stream());
  cuda::ScaleDownItem items[2];
  for (std::size_t p = 0; p < 2; ++p) {
    items[p] = {extended_sum.part(p) + n_, conv + p * kept * n_, out.part(p), nullptr};
  }
  finish_scale_down(c.mod_down_rescale, conv, {first + 1, kept}, items, 2);
}

void CudaEvaluator::mod_down_copied(const CudaCiphertext& extended, std::size_t first_part, std::size_t count,
                                    CudaCiphertext& out) const {
  const int level = extended.level;
  const std::size_t rows = q_rows_ - static_cast<std::size_t>(level);
  // The parts' P rows back to back, as mod_down_parts wants them.
  std::uint64_t* p_rows = accumulators_.data();
  const std::size_t part_pitch = extended.part_words() * 8;
  FHE_CUDA_CHECK(cudaMemcpy2DAsync(p_rows, p_rows_ * n_ * 8, extended.part(first_part) + rows * n_, part_pitch,
                                   p_rows_ * n_ * 8, count, cudaMemcpyDeviceToDevice, stream()));
  ModDownPart parts[2];
  for (std::size_t i = 0; i < count; ++i) {
    parts[i] = {extended.part(first_part + i), out.part(first_part + i), nullptr};
  }
  mod_down_parts(level, std::span<const ModDownPart>(parts, count), p_rows);
}

}  // namespace fhe
