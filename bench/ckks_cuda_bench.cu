// CUDA evaluator benchmarks (compiled when CUDA is built): the primitives of
// the ckks-primitive suite, rescale, device decryption and device public-key
// and secret-key encryption at the default preset, level 0, on the CUDA
// stable fallback and radix16_compact. Each sample: CUDA events on the
// evaluator's stream around one enqueued operation (manual time); operands
// are device ciphertexts (encryption: a device plaintext, encoded once)
// prepared once, keys generated once outside timing. Each encryption sample
// takes the engine's next encryption index. sum16_lazy_moddown is the
// matvec's lazy-moddown building block: 16 rotations (steps 0..15) times
// QP-encoded plaintexts summed by accumulate_rotations, then one mod_down.
// mod_down_rescale and mod_down_then_rescale finish such a sum (prepared
// once) in one division by P q_0 or in the two steps it replaces.
// Run with --benchmark_repetitions and read the median.
#include <benchmark/benchmark.h>

#include <complex>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "evaluator/cuda/cuda_encryptor.h"
#include "evaluator/cuda/cuda_evaluator.h"
#include "fhe/core/device_info.h"
#include "fhe/cuda/stream.h"

namespace {

constexpr const char* kPreset = "slots32768-scale40-levels34-int64";
const std::vector<int> kSteps = {1, 2, 4, 8};
constexpr int kSummedSteps = 16;  // steps 0..15 of sum16_lazy_moddown

struct State {
  std::unique_ptr<fhe::CkksEngine> engine;
  std::unique_ptr<fhe::CudaEvaluator> gpu;
  std::unique_ptr<fhe::CudaEncryptor> encryptor;
  fhe::CudaCiphertext a, b, out, plain, message, extended_sum, prepared_sum, moved_down;
  std::vector<fhe::CudaCiphertext> outs;
  std::vector<fhe::CudaBlockPlain> extended_plains;  // random slots: every word stored
  std::vector<int> summed_steps;
  std::vector<const fhe::CudaBlockPlain*> summed_plains;
};

// One state at a time (the 16 keys of one backend take about 6.5 GB).
State& state_for(const std::string& backend) {
  static std::string current;
  static std::unique_ptr<State> state;
  if (current != backend) {
    state.reset();
    state = std::make_unique<State>();
    state->engine = std::make_unique<fhe::CkksEngine>(
        kPreset, fhe::EngineOptions{.device = "cuda:0", .ntt_backend = backend, .seed = 34});
    std::vector<int> steps;
    for (int step = 1; step < kSummedSteps; ++step) steps.push_back(step);  // covers kSteps
    state->engine->generate_keys(steps);
    state->gpu = std::make_unique<fhe::CudaEvaluator>(*state->engine);
    std::mt19937_64 rng(1);
    std::vector<std::complex<double>> values(state->engine->slot_count());
    for (auto& v : values) v = {static_cast<double>(rng() % 1000) / 1000.0, 0.5};
    state->encryptor = std::make_unique<fhe::CudaEncryptor>(*state->engine, *state->gpu);
    for (fhe::CudaCiphertext* c : {&state->a, &state->b, &state->out, &state->plain, &state->message,
                                   &state->moved_down}) {
      *c = state->gpu->make_ciphertext();
    }
    state->gpu->upload(state->engine->encode(values), state->message);
    for (std::size_t i = 0; i < kSteps.size(); ++i) state->outs.push_back(state->gpu->make_ciphertext());
    std::vector<double> real(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) real[i] = values[i].real();
    for (int step = 0; step < kSummedSteps; ++step) {
      state->extended_plains.push_back(state->gpu->upload_blocks(state->engine->encode_extended(real)));
      state->summed_steps.push_back(step);
    }
    for (const auto& p : state->extended_plains) state->summed_plains.push_back(&p);
    state->extended_sum = state->gpu->make_extended();
    state->gpu->upload(state->engine->encrypt_message(values), state->a);
    state->gpu->upload(state->engine->encrypt_message(values), state->b);
    state->prepared_sum = state->gpu->make_extended();
    state->gpu->accumulate_rotations(state->a, state->summed_steps, state->summed_plains, state->prepared_sum);
    state->gpu->synchronize();
    current = backend;
  }
  return *state;
}

enum class Op {
  multiply_relinearize,
  rotate,
  rescale,
  rotate_many,
  sum_lazy,
  mod_down_rescale,
  mod_down_then_rescale,
  decrypt,
  encrypt,
  encrypt_symmetric
};

void enqueue(State& s, Op op) {
  switch (op) {
    case Op::multiply_relinearize: s.gpu->multiply_relinearize(s.a, s.b, s.out); break;
    case Op::rotate: s.gpu->rotate(s.a, 1, s.out); break;
    case Op::rescale: s.gpu->rescale(s.a, s.out); break;
    case Op::rotate_many: s.gpu->rotate_many_by_steps(s.a, kSteps, s.outs); break;
    case Op::sum_lazy:
      s.extended_sum.parts = 0;
      s.gpu->accumulate_rotations(s.a, s.summed_steps, s.summed_plains, s.extended_sum);
      s.gpu->mod_down(s.extended_sum, s.out);
      break;
    case Op::mod_down_rescale: s.gpu->mod_down_rescale(s.prepared_sum, s.out); break;
    case Op::mod_down_then_rescale:
      s.gpu->mod_down(s.prepared_sum, s.moved_down);
      s.gpu->rescale(s.moved_down, s.out);
      break;
    case Op::decrypt: s.gpu->decrypt(s.a, s.plain); break;
    case Op::encrypt: s.encryptor->encrypt(s.message, s.out); break;
    case Op::encrypt_symmetric: s.encryptor->encrypt_symmetric(s.message, s.out); break;
  }
}

void run(benchmark::State& bench, const std::string& backend, Op op) {
  if (fhe::query_gpus().gpus.empty()) {
    bench.SkipWithError("no CUDA device");
    return;
  }
  State& s = state_for(backend);
  fhe::cuda::Event start, stop;
  enqueue(s, op);  // warm-up
  s.gpu->synchronize();
  for (auto _ : bench) {
    start.record(s.gpu->stream());
    enqueue(s, op);
    stop.record(s.gpu->stream());
    stop.synchronize();
    bench.SetIterationTime(stop.elapsed_ms_since(start) / 1e3);
  }
}

int register_all() {
  const std::pair<const char*, Op> ops[] = {{"multiply_relinearize", Op::multiply_relinearize},
                                            {"rotate_with_key", Op::rotate},
                                            {"rescale", Op::rescale},
                                            {"rotate_many_by_steps4", Op::rotate_many},
                                            {"sum16_lazy_moddown", Op::sum_lazy},
                                            {"mod_down_rescale", Op::mod_down_rescale},
                                            {"mod_down_then_rescale", Op::mod_down_then_rescale},
                                            {"decrypt_device", Op::decrypt},
                                            {"encrypt_device", Op::encrypt},
                                            {"encrypt_symmetric_device", Op::encrypt_symmetric}};
  for (const char* backend : {"radix2_compact_group8_smem8", "radix16_compact"}) {
    for (const auto& [name, op] : ops) {
      benchmark::RegisterBenchmark((std::string("cuda_ckks/") + name + "/" + backend).c_str(),
                                   [backend = std::string(backend), op = op](benchmark::State& b) {
                                     run(b, backend, op);
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(50);
    }
  }
  return 0;
}
const int registered = register_all();

}  // namespace
