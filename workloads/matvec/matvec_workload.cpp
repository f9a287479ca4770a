// Diagonal and BSGS matvec over the CPU evaluator, rotation-parallel threads.
#include "workloads/matvec/matvec_workload.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <thread>

#include "fhe/core/error.h"
#include "workloads/matvec/diagonal_encoding.h"

namespace fhe::workloads {
namespace {

// Accumulates products of rotated ciphertexts with diagonals under a policy:
// batch = sum up to `batch` raw products, then rescale the sum; loop =
// rescale each product before adding.
class TermAccumulator {
 public:
  TermAccumulator(const Evaluator& evaluator, const MatvecConfig& config)
      : evaluator_(evaluator), config_(config) {}

  void add_term(const Ciphertext& rotated, const Plaintext& diagonal) {
    Ciphertext product = evaluator_.multiply_plain(rotated, diagonal);
    if (config_.policy == DiagonalPolicy::loop) {
      add_to_total(evaluator_.rescale(product));
      return;
    }
    pending_ = pending_ ? evaluator_.add(*pending_, product) : std::move(product);
    if (++pending_terms_ == config_.batch) flush();
  }

  // The rescaled sum of every term added (nullopt when none was).
  std::optional<Ciphertext> finish() {
    flush();
    return std::move(total_);
  }

 private:
  void flush() {
    if (!pending_) return;
    add_to_total(evaluator_.rescale(*pending_));
    pending_.reset();
    pending_terms_ = 0;
  }
  void add_to_total(Ciphertext term) {
    total_ = total_ ? evaluator_.add(*total_, term) : std::move(term);
  }

  const Evaluator& evaluator_;
  const MatvecConfig& config_;
  std::optional<Ciphertext> pending_;
  int pending_terms_ = 0;
  std::optional<Ciphertext> total_;
};

// Runs `work(worker, begin, end)` for each part of [0, count) on its own
// thread (inline when there is one worker) and returns the partial results.
template <typename Work>
std::vector<std::optional<Ciphertext>> run_partitioned(int count, int workers, Work&& work) {
  const auto parts = partition_range(count, workers);
  std::vector<std::optional<Ciphertext>> partial(parts.size());
  if (parts.size() == 1) {
    partial[0] = work(0, parts[0].first, parts[0].second);
    return partial;
  }
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(parts.size());
  for (std::size_t w = 0; w < parts.size(); ++w) {
    threads.emplace_back([&, w] {
      try {
        partial[w] = work(w, parts[w].first, parts[w].second);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return partial;
}

Ciphertext reduce_partials(const Evaluator& evaluator, std::vector<std::optional<Ciphertext>> partial) {
  std::optional<Ciphertext> sum;
  for (auto& part : partial) {
    if (!part) continue;
    sum = sum ? evaluator.add(*sum, *part) : std::move(*part);
  }
  return std::move(*sum);
}

}  // namespace

std::vector<std::pair<int, int>> partition_range(int count, int parts) {
  std::vector<std::pair<int, int>> ranges;
  for (int p = 0; p < parts; ++p) {
    const int begin = static_cast<int>(static_cast<long long>(count) * p / parts);
    const int end = static_cast<int>(static_cast<long long>(count) * (p + 1) / parts);
    ranges.emplace_back(begin, end);
  }
  return ranges;
}

MatvecWorkload::MatvecWorkload(CkksEngine& engine, MatvecConfig config)
    : engine_(engine), config_(config) {
  validate(config_, engine_.slot_count());
  for (int step : matvec_rotation_steps(config_)) {
    if (!engine_.has_galois_key(engine_.galois_element_for_step(step))) {
      throw InvalidArgument("matvec needs the Galois key of rotation step " +
                            std::to_string(step) + " (generate_keys with matvec_rotation_steps)");
    }
  }
  problem_ = make_matvec_problem(config_.dim, engine_.slot_count(), config_.seed);
  for (int w = 0; w < config_.workers; ++w) evaluators_.push_back(std::make_unique<Evaluator>(engine_));
  std::vector<int> all(static_cast<std::size_t>(matvec_diagonal_count(config_)));
  std::iota(all.begin(), all.end(), 0);
  encode_diagonals(engine_, problem_, config_, all,
                   [&](int, Plaintext diagonal) { diagonals_.push_back(std::move(diagonal)); });
}

int MatvecWorkload::rotation_count() const { return matvec_rotation_count(config_); }

Ciphertext MatvecWorkload::encrypt_input() { return engine_.encrypt_message(problem_.input_slots()); }

Ciphertext MatvecWorkload::run(const Ciphertext& input) const {
  return config_.method == MatvecMethod::diagonal ? run_diagonal(input) : run_bsgs(input);
}

Ciphertext MatvecWorkload::run_diagonal(const Ciphertext& input) const {
  if (config_.policy == DiagonalPolicy::lazy_moddown) return run_diagonal_lazy(input);
  // Worker w handles diagonals [begin, end); step 0 is the input itself.
  auto work = [&](int worker, int begin, int end) -> std::optional<Ciphertext> {
    const Evaluator& evaluator = *evaluators_[worker];
    TermAccumulator terms(evaluator, config_);
    for (std::vector<int> steps : hoist_chunks(begin, end, config_.hoist)) {
      if (steps.front() == 0) {
        terms.add_term(input, diagonals_[0]);
        steps.erase(steps.begin());
      }
      if (steps.empty()) continue;
      const std::vector<Ciphertext> rotated = evaluator.rotate_many_by_steps(input, steps);
      for (std::size_t k = 0; k < steps.size(); ++k) terms.add_term(rotated[k], diagonals_[steps[k]]);
    }
    return terms.finish();
  };
  return reduce_partials(*evaluators_[0], run_partitioned(config_.dim, config_.workers, work));
}

Ciphertext MatvecWorkload::run_diagonal_lazy(const Ciphertext& input) const {
  // Worker w sums its diagonals' terms before ModDown; the partial sums
  // are added in that form too, so one ModDown-and-rescale finishes the
  // product and the words do not depend on the worker count.
  auto work = [&](int worker, int begin, int end) -> std::optional<Ciphertext> {
    const Evaluator& evaluator = *evaluators_[worker];
    Ciphertext sum;
    for (const std::vector<int>& steps : hoist_chunks(begin, end, config_.hoist)) {
      std::vector<const Plaintext*> plains;
      for (int s : steps) plains.push_back(&diagonals_[s]);
      evaluator.accumulate_rotations(input, steps, plains, sum);
    }
    return sum.parts.empty() ? std::nullopt : std::optional<Ciphertext>(std::move(sum));
  };
  const Evaluator& main = *evaluators_[0];
  return main.mod_down_rescale(reduce_partials(main, run_partitioned(config_.dim, config_.workers, work)));
}

Ciphertext MatvecWorkload::run_bsgs_lazy(const Ciphertext& input) const {
  const int g = bsgs_baby_steps(config_);
  const Evaluator& main = *evaluators_[0];
  // Baby steps 0..g-1 kept before their ModDown, decomposed once per chunk.
  std::vector<Ciphertext> baby;
  for (const std::vector<int>& steps : hoist_chunks(0, g, config_.hoist)) {
    for (Ciphertext& term : main.rotate_many_extended(input, steps)) baby.push_back(std::move(term));
  }
  // Per giant step: the inner sum over QP, rotated from that extended form
  // (only its c1 part brought down to Q for the key switch) into the sum;
  // one ModDown-and-rescale at the end.
  auto work = [&](int w, int begin, int end) -> std::optional<Ciphertext> {
    const Evaluator& worker = *evaluators_[w];
    Ciphertext sum;
    for (int j = begin; j < end; ++j) {
      Ciphertext inner = worker.multiply_plain(baby[0], diagonals_[j * g]);
      for (int i = 1; i < g; ++i) inner = worker.add(inner, worker.multiply_plain(baby[i], diagonals_[j * g + i]));
      worker.accumulate_extended_rotation(inner, j * g, sum);
    }
    return sum.parts.empty() ? std::nullopt : std::optional<Ciphertext>(std::move(sum));
  };
  const int giants = bsgs_giant_steps(config_);
  return main.mod_down_rescale(reduce_partials(main, run_partitioned(giants, config_.workers, work)));
}

Ciphertext MatvecWorkload::run_bsgs(const Ciphertext& input) const {
  if (config_.policy == DiagonalPolicy::lazy_moddown) return run_bsgs_lazy(input);
  const int g = bsgs_baby_steps(config_);
  const int giants = bsgs_giant_steps(config_);
  // Baby steps: one hoisted decomposition per chunk of `hoist` rotations.
  const Evaluator& evaluator = *evaluators_[0];
  std::vector<Ciphertext> baby{input};
  for (const std::vector<int>& steps : hoist_chunks(1, g, config_.hoist)) {
    for (Ciphertext& rotated : evaluator.rotate_many_by_steps(input, steps)) {
      baby.push_back(std::move(rotated));
    }
  }
  // Giant steps, partitioned across workers: inner sums then one rotation each.
  auto work = [&](int w, int begin, int end) -> std::optional<Ciphertext> {
    const Evaluator& worker = *evaluators_[w];
    std::optional<Ciphertext> sum;
    for (int j = begin; j < end; ++j) {
      TermAccumulator terms(worker, config_);
      for (int i = 0; i < g; ++i) terms.add_term(baby[i], diagonals_[j * g + i]);
      Ciphertext inner = *terms.finish();
      if (j > 0) inner = worker.rotate(inner, j * g);
      sum = sum ? worker.add(*sum, inner) : std::move(inner);
    }
    return sum;
  };
  return reduce_partials(evaluator, run_partitioned(giants, config_.workers, work));
}

double MatvecWorkload::max_abs_error(const Ciphertext& result) const {
  const auto decoded = engine_.decrypt_message(result);
  std::vector<double> real(decoded.size());
  for (std::size_t i = 0; i < decoded.size(); ++i) real[i] = decoded[i].real();
  return problem_.max_abs_error(real);
}

}  // namespace fhe::workloads
