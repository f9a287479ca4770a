// CudaEvaluator: construction (memory check, key and constant uploads),
// transfers and copies. The operations, each a fixed sequence of enqueued
// kernels and plan calls, are in cuda_operations.cpp, cuda_rotations.cpp,
// cuda_plain_sums.cpp and cuda_key_switch.cpp.
#include "evaluator/cuda/cuda_evaluator.h"

#include <cstring>
#include <span>
#include <string>

#include "evaluator/cuda/operand_checks.h"
#include "evaluator/cuda_workspace.h"
#include "fhe/arith/modarith.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

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
      side_stream_((cuda::DeviceGuard(device_), cuda::Stream())),
      fork_((cuda::DeviceGuard(device_), cuda::OrderEvent())),
      join_((cuda::DeviceGuard(device_), cuda::OrderEvent())),
      schedules_(engine.preset()) {
  const cuda::DeviceGuard on_device(device_);
  const Preset& preset = engine.preset();
  if (options.shared_keys &&
      (options.shared_keys->source != engine.key_set() || options.shared_keys->device != device_)) {
    throw InvalidArgument("CudaEvaluator: the shared device keys are not this engine's current keys on " +
                          engine.device().str() + " (share keys() of an evaluator whose engine holds the same "
                          "key set: the same engine, or one this engine adopt_keys-ed)");
  }
  if (!key_terms_fit_32_bit_offsets(preset)) {
    throw InvalidArgument("CudaEvaluator: preset " + preset.name + " has keys or hoisted digits beyond 2^32 words, "
                          "which the rotation kernels' 32-bit offsets do not reach");
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
  std::vector<double> q_inverse;
  for (std::uint64_t q : preset.qp_primes()) {
    moduli.emplace_back(q);
    q_inverse.push_back(ntt::gpu::fp64_inverse(q));
  }
  moduli_ = DeviceBuffer<Modulus<std::uint64_t>>::from_host(std::span<const Modulus<std::uint64_t>>(moduli),
                                                            "moduli");
  q_inverse_ = DeviceBuffer<double>::from_host(std::span<const double>(q_inverse), "1/q");
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
  const cuda::DeviceGuard on_device(device_);
  return CudaCiphertext(q_rows_, n_);
}

void CudaEvaluator::check_made_here(const CudaCiphertext& out, const char* op) const {
  if (out.max_rows() != q_rows_ || out.n() != n_) {
    throw InvalidArgument(std::string(op) + ": output ciphertext was not made by this evaluator "
                          "(make_ciphertext)");
  }
}

void CudaEvaluator::check_output(const CudaCiphertext& out, const char* op, std::size_t parts, int level) const {
  check_made_here(out, op);
  if (out.capacity_words() < parts * (q_rows_ - static_cast<std::size_t>(level)) * n_) {
    throw InvalidArgument(std::string(op) + ": the output buffer holds fewer than " + std::to_string(parts) +
                          " parts at level " + std::to_string(level));
  }
}

void CudaEvaluator::check_operand(const CudaCiphertext& a, std::size_t low, std::size_t high, const char* op) const {
  cuda::check_parts(a, low, high, op, engine_);
  if (a.max_rows() != q_rows_ || a.n() != n_) {
    throw InvalidArgument(std::string(op) + ": an operand of " + std::to_string(a.max_rows()) + " rows of N = " +
                          std::to_string(a.n()) + " is not a ciphertext of this evaluator (make_ciphertext: " +
                          std::to_string(q_rows_) + " rows of N = " + std::to_string(n_) + ")");
  }
  if (a.capacity_words() < a.parts * a.part_words()) {
    throw InvalidArgument(std::string(op) + ": an operand of " + std::to_string(a.parts) +
                          " parts in a buffer that holds fewer");
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
  const cuda::DeviceGuard on_device(device_);
  return CudaCiphertext(qp_rows_, n_, capacity_parts);
}

void CudaEvaluator::take_upload(std::span<const RnsPoly> parts, int level, double scale,
                                CudaCiphertext& device) const {
  // Into a make_ciphertext or a make_extended buffer; the row check below
  // refuses a host polynomial of the other kind. Checked before anything changes.
  if (device.max_rows() != qp_rows_) check_made_here(device, "upload");
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
  const cuda::DeviceGuard on_device(device_);
  take_upload(host.parts, host.level, host.scale, device);
  for (std::size_t p = 0; p < host.size(); ++p) {
    FHE_CUDA_CHECK(cudaMemcpyAsync(device.part(p), host.parts[p].data(), device.part_words() * 8,
                                   cudaMemcpyHostToDevice, stream()));
  }
}

void CudaEvaluator::upload(const Plaintext& host, CudaCiphertext& device) const {
  const cuda::DeviceGuard on_device(device_);
  take_upload(std::span(&host.poly, 1), host.level, host.scale, device);
  FHE_CUDA_CHECK(cudaMemcpyAsync(device.part(0), host.poly.data(), device.part_words() * 8, cudaMemcpyHostToDevice,
                                 stream()));
}

void CudaEvaluator::upload(const Plaintext& host, CudaCiphertext& device, cuda::StagedUploader& staging) const {
  const cuda::DeviceGuard on_device(device_);
  take_upload(std::span(&host.poly, 1), host.level, host.scale, device);
  staging.upload(device.part(0), device.part_words() * 8, [&](std::span<std::uint8_t> bytes) {
    std::memcpy(bytes.data(), host.poly.data(), bytes.size());
  });
}

Ciphertext CudaEvaluator::download(const CudaCiphertext& device) const {
  const cuda::DeviceGuard on_device(device_);
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
  const cuda::DeviceGuard on_device(device_);
  if (from.max_rows() == qp_rows_) {
    check_extended(from, "copy", from.parts);
    check_extended(to, "copy", from.parts);
  } else {
    check_operand(from, 1, 3, "copy");
    check_output(to, "copy", from.parts, from.level);
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

}  // namespace fhe
