// CKKS primitives on the CPU (docs/performance.md, "CKKS primitives on the
// CPU"): multiply_relinearize, relinearize alone (the SEAL comparison),
// rotate (step 1) and the hoisted rotate_many_by_steps {1, 2, 4, 8}, plus
// rescale and encrypt/decrypt_message, at logN 15 and 16, one thread, the
// CPU default backend. Keys are generated once per preset, outside timing.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "evaluator/evaluator.h"

namespace {

struct CkksFixture {
  std::unique_ptr<fhe::CkksEngine> engine;
  std::unique_ptr<fhe::Evaluator> evaluator;
  fhe::Ciphertext a, b;
  fhe::Ciphertext product;  // a * b before relinearization (3 parts)
};

// Built on first use and kept for the process (key generation is slow and never timed).
CkksFixture& fixture(const std::string& preset) {
  static std::map<std::string, CkksFixture> fixtures;
  auto it = fixtures.find(preset);
  if (it != fixtures.end()) return it->second;
  CkksFixture f;
  f.engine = std::make_unique<fhe::CkksEngine>(preset, fhe::EngineOptions{.seed = 1});
  f.engine->generate_keys({1, 2, 4, 8});
  f.evaluator = std::make_unique<fhe::Evaluator>(*f.engine);
  std::vector<double> values(f.engine->slot_count());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5 + 0.25 * std::sin(0.01 * i);
  f.a = f.engine->encrypt_message(values);
  f.b = f.engine->encrypt_message(values);
  f.product = f.evaluator->multiply(f.a, f.b);
  return fixtures.emplace(preset, std::move(f)).first->second;
}

enum class Primitive { multiply_relinearize, relinearize, rotate, rotate_many, rescale, encrypt_message, decrypt_message };

void bench_primitive(benchmark::State& state, std::string preset, Primitive primitive) {
  CkksFixture& f = fixture(preset);
  const std::vector<double> values(f.engine->slot_count(), 0.25);
  for (auto _ : state) {
    switch (primitive) {
      case Primitive::multiply_relinearize:
        benchmark::DoNotOptimize(f.evaluator->multiply_relinearize(f.a, f.b));
        break;
      case Primitive::relinearize:
        benchmark::DoNotOptimize(f.evaluator->relinearize(f.product));
        break;
      case Primitive::rotate:
        benchmark::DoNotOptimize(f.evaluator->rotate(f.a, 1));
        break;
      case Primitive::rotate_many:
        benchmark::DoNotOptimize(f.evaluator->rotate_many_by_steps(f.a, {1, 2, 4, 8}));
        break;
      case Primitive::rescale:
        benchmark::DoNotOptimize(f.evaluator->rescale(f.a));
        break;
      case Primitive::encrypt_message:
        benchmark::DoNotOptimize(f.engine->encrypt_message(values));
        break;
      case Primitive::decrypt_message:
        benchmark::DoNotOptimize(f.engine->decrypt_message(f.a));
        break;
    }
  }
  state.counters["rows"] = static_cast<double>(f.engine->preset().qp_rows());
}

int register_all() {
  const std::pair<const char*, Primitive> primitives[] = {
      {"multiply_relinearize", Primitive::multiply_relinearize},
      {"relinearize", Primitive::relinearize},
      {"rotate", Primitive::rotate},
      {"rotate_many_by_steps4", Primitive::rotate_many},
      {"rescale", Primitive::rescale},
      {"encrypt_message", Primitive::encrypt_message},
      {"decrypt_message", Primitive::decrypt_message}};
  for (const char* preset : {"slots16384-scale40-levels16-int64", "slots32768-scale40-levels34-int64"}) {
    for (const auto& [name, primitive] : primitives) {
      const std::string full = std::string("ckks_cpu/") + name + "/" + preset;
      benchmark::RegisterBenchmark(full.c_str(), bench_primitive, std::string(preset), primitive)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace
