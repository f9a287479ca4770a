// The ckks-primitive suite on fhe::CkksEngine and fhe::Evaluator (CPU) or
// fhe::CudaEvaluator + fhe::CudaEncryptor (CUDA: device ciphertexts and
// plaintexts, every timed operation on the device, CUDA events on the
// evaluator's stream, operands restored by device-to-device copies).
#include "recommend/primitive_suite.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <numbers>
#include <random>

#include "evaluator/cuda_workspace.h"
#include "evaluator/evaluator.h"
#if FHELIUM_HAS_CUDA
#include "evaluator/cuda/cuda_encryptor.h"
#include "evaluator/cuda/cuda_evaluator.h"
#endif
#include "fhe/ckks/engine.h"
#include "fhe/core/error.h"
#include "recommend/device_memory.h"
#include "recommend/level_rows.h"
#include "recommend/sample_timer.h"
#include "recommend/suite_catalog.h"
#include "workloads/memory_plan.h"

namespace fhelium {
namespace {

using Message = std::vector<std::complex<double>>;

// Indices into suite_operations("ckks-primitive").
enum PrimitiveOp : std::size_t {
  kEncrypt = 0,
  kDecrypt = 1,
  kMultiplyRelinearize = 2,
  kRotate = 3,
  kRotateMany = 4,
};
constexpr int kRotateStep = 1;
const std::vector<int> kHoistedSteps = {1, 2, 4, 8};

// Slot values of magnitude in [0.02, 1] with a uniform phase, from the
// seed alone (no standard-library distribution, so the words are the same
// with every standard library).
Message random_message(std::size_t slots, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  Message message(slots);
  for (auto& value : message) {
    const double magnitude = 0.02 + 0.98 * unit();
    value = std::polar(magnitude, 2 * std::numbers::pi * unit());
  }
  return message;
}

Message rotated_left(const Message& message, int step) {
  Message out(message.size());
  const std::size_t n = message.size();
  for (std::size_t j = 0; j < n; ++j) out[j] = message[(j + static_cast<std::size_t>(step)) % n];
  return out;
}

struct ErrorReport {
  double max_error = 0.0;
  std::size_t worst_slot = 0;
};

ErrorReport max_error(const Message& expected, const Message& actual) {
  ErrorReport report;
  for (std::size_t j = 0; j < expected.size() && j < actual.size(); ++j) {
    const double error = std::abs(expected[j] - actual[j]);
    if (!(error <= report.max_error)) {  // also catches NaN
      report.max_error = error;
      report.worst_slot = j;
    }
  }
  return report;
}

nlohmann::json complex_list(const Message& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : values) out.push_back({v.real(), v.imag()});
  return out;
}

struct Check {
  std::string operation;
  Message expected, actual;
};

class PrimitiveSuite : public Suite {
 public:
  PrimitiveSuite(const fhe::Preset& preset, const fhe::DeviceSpec& device, int level,
                 std::uint64_t seed)
      : preset_(preset),
        device_(device),
        level_(level),
        seed_(seed),
        message_a_(random_message(preset.slots(), seed)),
        message_b_(random_message(preset.slots(), seed ^ 0x9e3779b97f4a7c15ULL)),
        timer_(device) {}

  std::string_view name() const override { return kPrimitiveSuite; }
  const std::vector<std::string>& operations() const override {
    return suite_operations(kPrimitiveSuite);
  }

  TimedBoundary timed_boundary() const override {
    const std::string at = " at " + level_rows_text(preset_, level_);
    const bool cuda = device_.kind == fhe::DeviceKind::cuda;
    TimedBoundary boundary;
    boundary.includes = {
        cuda ? "encrypt_message: device public-key encryption of the message's device plaintext (u, e0, e1 "
               "sampled on the device, their forward NTTs, the public-key products)" + at
             : "encrypt_message: encode of N/2 complex slots + public-key encryption" + at,
        cuda ? "decrypt_message: device decryption into a device plaintext" + at
             : "decrypt_message: decryption + decode to N/2 slots" + at,
        "multiply_relinearize: ciphertext tensor product + relinearization key switch" + at,
        "rotate_with_key: rotation by 1 slot with its Galois key (key switch)" + at,
        "rotate_many_by_steps[4]: hoisted rotations by 1, 2, 4, 8 (decomposition and basis "
        "extension once, then per step permutation, key inner product, ModDown)" + at,
        "allocation of the returned ciphertexts or slot vectors"};
    boundary.excludes = {"engine construction, NTT plan, key generation (secret, public, "
                         "relinearization, Galois keys for steps 1, 2, 4, 8)",
                         "encryption of the operands of the timed operations",
                         "destruction of the previous sample's result (before each sample)",
                         "rescale after multiply_relinearize", "the correctness gate"};
    if (cuda) {
      boundary.includes.back() =
          "CUDA: operands, plaintexts and results are device buffers preallocated before timing; "
          "each encrypt_message sample takes the engine's next encryption index (fresh randomness)";
      boundary.excludes.push_back(
          "CUDA: encoding the message (host double FFT) and uploading its plaintext, once per backend; "
          "downloading and decoding a decrypted plaintext (only in the correctness gate)");
      boundary.excludes.push_back("CUDA: the device-to-device copy that restores the operands");
    }
    boundary.synchronisation =
        cuda
            ? "start CUDA event on the CudaEvaluator's stream, the operation enqueued on that "
              "stream (no host work in between), stop event on the same stream, host waits on it; "
              "elapsed time from cudaEventElapsedTime"
            : "std::chrono::steady_clock read before and after the synchronous call on the "
              "calling thread";
    return boundary;
  }

  void prepare(const std::string& backend) override {
    if (states_.count(backend)) return;
    auto state = std::make_unique<BackendState>();
    state->engine = std::make_unique<fhe::CkksEngine>(
        preset_.name, fhe::EngineOptions{.device = device_.str(), .ntt_backend = backend, .seed = seed_});
    std::vector<int> steps = kHoistedSteps;
    if (std::find(steps.begin(), steps.end(), kRotateStep) == steps.end()) steps.push_back(kRotateStep);
    state->engine->generate_keys(steps);
    state->evaluator = std::make_unique<fhe::Evaluator>(*state->engine);
    state->a = state->engine->encrypt_message(message_a_, level_);
    state->b = state->engine->encrypt_message(message_b_, level_);
#if FHELIUM_HAS_CUDA
    if (device_.kind == fhe::DeviceKind::cuda) prepare_gpu(*state);
#endif
    states_[backend] = std::move(state);
  }

  CorrectnessRecord check_correctness(const std::string& backend) override {
    BackendState& s = state(backend);
    Message product(message_a_.size());
    for (std::size_t j = 0; j < product.size(); ++j) product[j] = message_a_[j] * message_b_[j];

    std::vector<Check> checks;
#if FHELIUM_HAS_CUDA
    if (s.gpu) {
      gpu_checks(s, product, checks);
    } else
#endif
    {
    checks.push_back({"encrypt_message+decrypt_message", message_a_,
                      s.engine->decrypt_message(s.engine->encrypt_message(message_a_, level_))});
    checks.push_back({"multiply_relinearize (then rescale)", product,
                      s.engine->decrypt_message(
                          s.evaluator->rescale(s.evaluator->multiply_relinearize(s.a, s.b)))});
    checks.push_back({"rotate_with_key step 1", rotated_left(message_a_, kRotateStep),
                      s.engine->decrypt_message(s.evaluator->rotate(s.a, kRotateStep))});
    const std::vector<fhe::Ciphertext> hoisted = s.evaluator->rotate_many_by_steps(s.a, kHoistedSteps);
    for (std::size_t i = 0; i < kHoistedSteps.size(); ++i) {
      checks.push_back({"rotate_many_by_steps[4] step " + std::to_string(kHoistedSteps[i]),
                        rotated_left(message_a_, kHoistedSteps[i]),
                        s.engine->decrypt_message(hoisted[i])});
    }
    }

    CorrectnessRecord record;
    record.backend = backend;
    record.passed = true;
    record.checks = {{"abort_limit", kPrimitiveAbortError}, {"max_abs_error", nlohmann::json::object()}};
    double worst = 0.0;
    const Check* worst_check = nullptr;
    ErrorReport worst_report;
    for (const Check& check : checks) {
      const ErrorReport report = max_error(check.expected, check.actual);
      record.checks["max_abs_error"][check.operation] = report.max_error;
      if (!(report.max_error <= kPrimitiveAbortError)) record.passed = false;
      if (worst_check == nullptr || !(report.max_error <= worst)) {
        worst = report.max_error;
        worst_check = &check;
        worst_report = report;
      }
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.3g", worst);
    if (record.passed) {
      record.summary = "decryption error within " + std::string("1e-4") + " (worst " + text + ")";
      return record;
    }
    record.summary = "decryption error " + std::string(text) + " in " + worst_check->operation +
                     " exceeds the abort limit 1e-4";
    const std::size_t slot = worst_report.worst_slot;
    record.failing_input = {
        {"suite", kPrimitiveSuite},
        {"backend", backend},
        {"device", device_.str()},
        {"preset", preset_.name},
        {"preset_primes_hash", fhe::preset_primes_hash(preset_)},
        {"level", level_},
        {"seed", seed_},
        {"engine", "fhe::CkksEngine(preset, {.device, .ntt_backend = backend, .seed = seed}); "
                   "generate_keys({1, 2, 4, 8}); encrypt_message(message_a, level), then "
                   "encrypt_message(message_b, level)"},
        {"message_generator",
         "std::mt19937_64(seed) for message_a, (seed ^ 0x9e3779b97f4a7c15) for message_b; per slot "
         "u = (rng() >> 11) * 2^-53 twice: magnitude 0.02 + 0.98 u1, phase 2 pi u2"},
        {"message_a", complex_list(message_a_)},
        {"message_b", complex_list(message_b_)},
        {"worst",
         {{"operation", worst_check->operation},
          {"slot", slot},
          {"expected", {worst_check->expected[slot].real(), worst_check->expected[slot].imag()}},
          {"actual", {worst_check->actual[slot].real(), worst_check->actual[slot].imag()}}}},
        {"checks", record.checks}};
    return record;
  }

  void restore_input(const std::string& backend, std::size_t) override {
    // Free the previous result outside the timed region; the operands are
    // never modified, so nothing else needs restoring.
    BackendState& s = state(backend);
    s.result = {};
    s.results.clear();
    s.slots.clear();
#if FHELIUM_HAS_CUDA
    if (s.gpu) {
      s.gpu->copy(s.saved_a, s.da);
      s.gpu->copy(s.saved_b, s.db);
      s.gpu->synchronize();
    }
#endif
  }

  double time_once(const std::string& backend, std::size_t operation) override {
    BackendState& s = state(backend);
#if FHELIUM_HAS_CUDA
    if (s.gpu) return time_gpu(s, operation);
#endif
    timer_.synchronize_device();
    timer_.start();
    switch (operation) {
      case kEncrypt: s.result = s.engine->encrypt_message(message_a_, level_); break;
      case kDecrypt: s.slots = s.engine->decrypt_message(s.a); break;
      case kMultiplyRelinearize: s.result = s.evaluator->multiply_relinearize(s.a, s.b); break;
      case kRotate: s.result = s.evaluator->rotate(s.a, kRotateStep); break;
      case kRotateMany: s.results = s.evaluator->rotate_many_by_steps(s.a, kHoistedSteps); break;
      default:
        throw fhe::InvalidArgument("ckks-primitive suite has no operation " + std::to_string(operation));
    }
    timer_.synchronize_device();
    return timer_.stop_ms();
  }

 private:
  struct BackendState {
    std::unique_ptr<fhe::CkksEngine> engine;
    std::unique_ptr<fhe::Evaluator> evaluator;  // refers to *engine; declared after it
    fhe::Ciphertext a, b;                       // operands at level_
    fhe::Ciphertext result;                     // sinks: keep the work observable
    std::vector<fhe::Ciphertext> results;
    Message slots;
#if FHELIUM_HAS_CUDA
    std::unique_ptr<fhe::CudaEvaluator> gpu;    // refers to *engine
    std::unique_ptr<fhe::CudaEncryptor> encryptor;  // refers to *engine and *gpu
    fhe::CudaCiphertext da, db, saved_a, saved_b, out, plain;
    fhe::CudaCiphertext message_plain;          // encode(message_a, level), uploaded once
    std::vector<fhe::CudaCiphertext> outs;
#endif
  };

#if FHELIUM_HAS_CUDA
  // Device keys, operands, the message's plaintext and every output buffer,
  // before any timing.
  void prepare_gpu(BackendState& s) const {
    s.gpu = std::make_unique<fhe::CudaEvaluator>(*s.engine);
    s.encryptor = std::make_unique<fhe::CudaEncryptor>(*s.engine, *s.gpu);
    for (fhe::CudaCiphertext* c : {&s.da, &s.db, &s.saved_a, &s.saved_b, &s.out, &s.plain, &s.message_plain}) {
      *c = s.gpu->make_ciphertext();
    }
    s.gpu->upload(s.engine->encode(message_a_, level_), s.message_plain);
    for (std::size_t i = 0; i < kHoistedSteps.size(); ++i) s.outs.push_back(s.gpu->make_ciphertext());
    s.gpu->upload(s.a, s.saved_a);
    s.gpu->upload(s.b, s.saved_b);
    s.gpu->copy(s.saved_a, s.da);
    s.gpu->copy(s.saved_b, s.db);
    s.gpu->synchronize();
  }

  void gpu_checks(BackendState& s, const Message& product, std::vector<Check>& checks) {
    fhe::CudaEvaluator& gpu = *s.gpu;
    s.encryptor->encrypt(s.message_plain, s.out);
    checks.push_back({"encrypt_message+decrypt_message (device encrypt and decrypt, host decode)", message_a_,
                      s.engine->decode(gpu.decrypt(s.out))});
    fhe::CudaCiphertext scaled = gpu.make_ciphertext();
    gpu.multiply_relinearize(s.da, s.db, s.out);
    gpu.rescale(s.out, scaled);
    checks.push_back({"multiply_relinearize (then rescale)", product, s.engine->decrypt_message(gpu.download(scaled))});
    gpu.rotate(s.da, kRotateStep, s.out);
    checks.push_back({"rotate_with_key step 1", rotated_left(message_a_, kRotateStep),
                      s.engine->decrypt_message(gpu.download(s.out))});
    gpu.rotate_many_by_steps(s.da, kHoistedSteps, s.outs);
    for (std::size_t i = 0; i < kHoistedSteps.size(); ++i) {
      checks.push_back({"rotate_many_by_steps[4] step " + std::to_string(kHoistedSteps[i]),
                        rotated_left(message_a_, kHoistedSteps[i]),
                        s.engine->decrypt_message(gpu.download(s.outs[i]))});
    }
  }

  double time_gpu(BackendState& s, std::size_t operation) {
    fhe::CudaEvaluator& gpu = *s.gpu;
    const fhe::ntt::StreamHandle stream{gpu.stream()};
    timer_.start(stream);
    switch (operation) {
      case kEncrypt: s.encryptor->encrypt(s.message_plain, s.out); break;
      case kDecrypt: gpu.decrypt(s.da, s.plain); break;  // into a preallocated one-part buffer
      case kMultiplyRelinearize: gpu.multiply_relinearize(s.da, s.db, s.out); break;
      case kRotate: gpu.rotate(s.da, kRotateStep, s.out); break;
      case kRotateMany: gpu.rotate_many_by_steps(s.da, kHoistedSteps, s.outs); break;
      default:
        throw fhe::InvalidArgument("ckks-primitive suite has no operation " + std::to_string(operation));
    }
    return timer_.stop_ms(stream);
  }
#endif

  BackendState& state(const std::string& backend) { return prepared_state(states_, backend, "ckks-primitive"); }

  const fhe::Preset& preset_;
  fhe::DeviceSpec device_;
  int level_;
  std::uint64_t seed_;
  Message message_a_, message_b_;
  SampleTimer timer_;
  std::map<std::string, std::unique_ptr<BackendState>> states_;
};

}  // namespace

namespace {

// One backend's share: its Galois keys are those of kHoistedSteps (which
// hold kRotateStep). The host keeps the engine's keys, the CPU evaluator's
// key-switch scratch (about the device's) and eight ciphertexts at most;
// the device its keys, workspaces and eleven 3-part buffers (prepare_gpu).
fhe::workloads::MemoryPlan primitive_backend_plan(const fhe::Preset& preset, fhe::DeviceKind side) {
  const std::size_t galois = kHoistedSteps.size(), ciphertext = fhe::workloads::ciphertext_bytes(preset, 0);
  const std::size_t workspaces = fhe::cuda_workspace_words(preset).total() * 8;
  if (side == fhe::DeviceKind::cuda) {
    return {{{"keys", fhe::cuda_key_bytes(preset, galois)},
             {"evaluator workspaces", workspaces},
             {"buffers", 11 * ciphertext * 3 / 2}}};
  }
  return {{{"keys", fhe::host_key_bytes(preset, galois)},
           {"evaluator workspaces", workspaces},
           {"ciphertexts", 8 * ciphertext}}};
}

}  // namespace

void require_primitive_backends_fit(const fhe::Preset& preset, fhe::DeviceKind side, std::size_t backends,
                                    const DeviceMemory& memory) {
  const fhe::workloads::MemoryPlan each = primitive_backend_plan(preset, side);
  const std::size_t per_backend = each.total_bytes();
  if (per_backend * backends <= memory.available_bytes) return;
  const std::size_t fit = memory.available_bytes / per_backend;
  throw fhe::DeviceError("ckks-primitive suite at " + preset.name + " holds every backend at once: " +
                         std::to_string(backends) + " x (" + each.summary() + ") but " + memory.description +
                         " has " + fhe::workloads::format_bytes(memory.available_bytes) + " free; " +
                         (fit >= 2 ? "at most " + std::to_string(fit) + " backends fit (name them with --backend)"
                                   : "fewer than two backends fit: use a smaller preset"));
}

void check_primitive_memory(const fhe::Preset& preset, const fhe::DeviceSpec& device, std::size_t backends) {
  require_primitive_backends_fit(preset, fhe::DeviceKind::cpu, backends,
                                 available_device_memory({fhe::DeviceKind::cpu, 0}));
  if (device.kind == fhe::DeviceKind::cuda)
    require_primitive_backends_fit(preset, fhe::DeviceKind::cuda, backends, available_device_memory(device));
}

void check_primitive_level(const fhe::Preset& preset, int level) {
  if (level >= preset.levels)
    throw fhe::InvalidArgument("ckks-primitive suite: level " + std::to_string(level) +
                               " leaves no prime to rescale the product at preset " + preset.name +
                               " (use a level below " + std::to_string(preset.levels) + ")");
}

std::unique_ptr<Suite> make_primitive_suite(const fhe::Preset& preset, const fhe::DeviceSpec& device,
                                            int level, std::uint64_t seed) {
  check_primitive_level(preset, level);
  return std::make_unique<PrimitiveSuite>(preset, device, level, seed);
}

}  // namespace fhelium
