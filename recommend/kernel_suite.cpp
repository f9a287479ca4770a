// The kernel suite.
#include "recommend/kernel_suite.h"

#include "fhe/core/error.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/ntt/verify.h"
#include "recommend/suite_catalog.h"

namespace fhelium {
namespace {

// Indices into suite_operations("kernel").
enum KernelOp : std::size_t { kForward = 0, kInverse = 1, kRoundtrip = 2 };

// Save every input word when the level is this small; above it the failing
// row and the seed recipe reproduce the failure (rows transform independently).
constexpr std::size_t kMaxSavedInputWords = std::size_t{1} << 16;

std::vector<std::uint64_t> row_words(const std::vector<std::uint64_t>& words, std::size_t row,
                                     std::size_t n) {
  return {words.begin() + static_cast<std::ptrdiff_t>(row * n),
          words.begin() + static_cast<std::ptrdiff_t>((row + 1) * n)};
}

}  // namespace

PlanFactory registry_plan_factory() {
  return [](std::string_view backend, const fhe::DeviceSpec& device, int log_n,
            std::span<const std::uint64_t> moduli, fhe::WordType word) {
    return fhe::ntt::make_plan(backend, device, log_n, moduli, word);
  };
}

KernelSuite::KernelSuite(const fhe::Preset& preset, const fhe::DeviceSpec& device, int level,
                         std::uint64_t seed, PlanFactory factory)
    : preset_(preset),
      device_(device),
      level_(level),
      seed_(seed),
      factory_(std::move(factory)),
      rows_(fhe::ntt::level_rows(preset, level)),
      moduli_(preset.qp_primes()),
      timer_(device) {
  oracle_ = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {fhe::DeviceKind::cpu, 0}, preset.log_n,
                                moduli_, preset.word);
  input_ = fhe::ntt::random_rows(*oracle_, rows_, seed_);
  buffers_ = std::make_unique<TransformBuffers>(device_, input_);
}

KernelSuite::~KernelSuite() = default;

const std::vector<std::string>& KernelSuite::operations() const {
  return suite_operations(kKernelSuite);
}

TimedBoundary KernelSuite::timed_boundary() const {
  const std::string shape = std::to_string(rows_.count) + " rows x " + std::to_string(preset_.n()) +
                            " words (level " + std::to_string(level_) + ": rows " +
                            std::to_string(rows_.first) + ".." +
                            std::to_string(rows_.first + rows_.count - 1) + ")";
  TimedBoundary boundary;
  boundary.includes = {
      "forward_ntt: one forward transform of " + shape,
      "inverse_ntt: one inverse transform of " + shape + ", including the N^-1 scaling",
      "roundtrip: one forward then one inverse transform of " + shape};
  boundary.excludes = {"plan and twiddle-table construction (once per backend)",
                       "restoring the input words before each sample",
                       "L2 flush and SM clock probe between samples",
                       "the correctness gate"};
  boundary.synchronisation =
      device_.kind == fhe::DeviceKind::cuda
          ? "CUDA events recorded on the suite's stream immediately before and after the "
            "transform(s); the host waits on the stop event; elapsed time from "
            "cudaEventElapsedTime"
          : "std::chrono::steady_clock read before and after the synchronous transform call on "
            "the calling thread";
  return boundary;
}

void KernelSuite::prepare(const std::string& backend) {
  if (plans_.count(backend)) return;
  plans_[backend] = factory_(backend, device_, preset_.log_n, moduli_, preset_.word);
}

const fhe::ntt::NttPlan& KernelSuite::plan(const std::string& backend) const {
  return prepared_state(plans_, backend, "kernel");
}

CorrectnessRecord KernelSuite::check_correctness(const std::string& backend) {
  const fhe::ntt::NttPlan& candidate = plan(backend);
  const fhe::ntt::VerifyResult result =
      fhe::ntt::verify_against_oracle(candidate, *oracle_, input_, rows_);
  CorrectnessRecord record;
  record.backend = backend;
  record.passed = result.passed();
  record.checks = {{"oracle", fhe::ntt::kOracleBackend},
                   {"forward_exact", result.forward_exact},
                   {"inverse_exact", result.inverse_exact},
                   {"roundtrip_exact", result.roundtrip_exact},
                   {"mismatched_words", result.mismatched_words}};
  if (result.mismatched_words > 0) {
    record.checks["first_mismatch_row"] = result.first_mismatch_row;
    record.checks["first_mismatch_index"] = result.first_mismatch_index;
  }
  if (!result.passed()) record.checks["first_failing_row"] = result.first_failing_row;
  if (record.passed) {
    record.summary = "bit-exact against " + std::string(fhe::ntt::kOracleBackend) +
                     " (forward, inverse, roundtrip)";
  } else {
    record.summary = "differs from " + std::string(fhe::ntt::kOracleBackend) + ": forward " +
                     (result.forward_exact ? "exact" : "MISMATCH (" +
                                                           std::to_string(result.mismatched_words) +
                                                           " words)") +
                     ", inverse " + (result.inverse_exact ? "exact" : "MISMATCH") +
                     ", roundtrip " + (result.roundtrip_exact ? "exact" : "MISMATCH");
    record.failing_input = failing_input(candidate, record.checks);
  }
  return record;
}

nlohmann::json KernelSuite::failing_input(const fhe::ntt::NttPlan& candidate,
                                          const nlohmann::json& checks) const {
  const std::size_t n = preset_.n();
  nlohmann::json out = {
      {"suite", "kernel"},
      {"backend", candidate.backend().name},
      {"device", device_.str()},
      {"preset", preset_.name},
      {"preset_primes_hash", fhe::preset_primes_hash(preset_)},
      {"log_n", preset_.log_n},
      {"level", level_},
      {"rows", {{"first", rows_.first}, {"count", rows_.count}}},
      {"moduli", std::vector<std::uint64_t>(moduli_.begin() + static_cast<std::ptrdiff_t>(rows_.first),
                                            moduli_.begin() + static_cast<std::ptrdiff_t>(rows_.first + rows_.count))},
      {"seed", seed_},
      {"input_generator",
       "fhe::ntt::random_rows(plan over preset.qp_primes(), rows, seed): one std::mt19937_64(seed); "
       "row by row, word by word, std::uniform_int_distribution<uint64_t>(0, q_row - 1)"},
      {"checks", checks}};
  if (input_.size() <= kMaxSavedInputWords) out["input_words"] = input_;
  if (checks.contains("first_failing_row")) {
    // The first failing row alone reproduces the failure, whichever check it
    // was: its input, both forwards, the candidate's inverse of the oracle's
    // forward (the inverse check) and of its own (the roundtrip).
    const std::size_t row = checks["first_failing_row"].get<std::size_t>();
    const fhe::ntt::RowRange one_row{row, 1};
    const auto transformed = [&](const fhe::ntt::NttPlan& plan, std::vector<std::uint64_t> words,
                                 fhe::ntt::Direction direction) {
      fhe::ntt::transform_on_host_data(plan, words, one_row, direction);
      return words;
    };
    const std::vector<std::uint64_t> words = row_words(input_, row - rows_.first, n);
    const std::vector<std::uint64_t> expected = transformed(*oracle_, words, fhe::ntt::Direction::forward);
    const std::vector<std::uint64_t> actual = transformed(candidate, words, fhe::ntt::Direction::forward);
    out["failing_row"] = {
        {"row", row},
        {"modulus", moduli_[row]},
        {"input_words", words},
        {"oracle_forward_words", expected},
        {"candidate_forward_words", actual},
        {"candidate_inverse_of_oracle_forward_words", transformed(candidate, expected, fhe::ntt::Direction::inverse)},
        {"candidate_roundtrip_words", transformed(candidate, actual, fhe::ntt::Direction::inverse)}};
  }
  return out;
}

void KernelSuite::restore_input(const std::string&, std::size_t) { buffers_->restore(); }

double KernelSuite::time_once(const std::string& backend, std::size_t operation) {
  const fhe::ntt::NttPlan& p = plan(backend);
  std::uint64_t* data = buffers_->work();
  const fhe::ntt::StreamHandle stream = buffers_->stream();
  timer_.start(stream);
  switch (operation) {
    case kForward: p.forward(data, rows_, stream); break;
    case kInverse: p.inverse(data, rows_, stream); break;
    case kRoundtrip:
      p.forward(data, rows_, stream);
      p.inverse(data, rows_, stream);
      break;
    default: throw fhe::InvalidArgument("kernel suite has no operation " + std::to_string(operation));
  }
  return timer_.stop_ms(stream);
}

}  // namespace fhelium
