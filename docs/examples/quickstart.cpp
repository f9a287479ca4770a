// Quickstart on the public API: build an engine on a small preset, generate
// keys, encrypt random vectors, run every CKKS operation once, decrypt, and
// print ONE JSON object with the maximum absolute error of each operation.
// Usage: quickstart [preset] [ntt_backend] [seed]
#include <complex>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluator/evaluator.h"
#include "fhe/core/error.h"

namespace {

using Message = std::vector<std::complex<double>>;

Message random_message(std::size_t slots, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> magnitude(0.02, 1.0), phase(0, 6.283185307179586);
  Message out(slots);
  for (auto& v : out) v = std::polar(magnitude(rng), phase(rng));
  return out;
}

double max_abs_error(const Message& got, const Message& expected) {
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::abs(got[i] - expected[i]));
  return worst;
}

template <typename Op>
Message elementwise(const Message& a, const Message& b, Op op) {
  Message out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = op(a[i], b[i]);
  return out;
}

Message rotated(const Message& x, int step) {
  Message out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[(i + step) % x.size()];
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string preset = argc > 1 ? argv[1] : "slots8192-scale40-levels7-int64";
  fhe::EngineOptions options;
  options.ntt_backend = argc > 2 ? argv[2] : "";  // empty: the device's default backend
  options.seed = argc > 3 ? std::stoull(argv[3]) : 2024;
  try {
    fhe::CkksEngine engine(preset, options);
    const std::vector<int> steps = {1, 2, 4, 8};
    engine.generate_keys(steps, /*conjugation=*/true);
    fhe::Evaluator evaluator(engine);

    std::mt19937_64 rng(options.seed);
    const Message x = random_message(engine.slot_count(), rng);
    const Message y = random_message(engine.slot_count(), rng);
    const fhe::Ciphertext cx = engine.encrypt_message(x), cy = engine.encrypt_message(y);
    const auto decrypt = [&](const fhe::Ciphertext& ct) { return engine.decrypt_message(ct); };
    const auto times = [](auto a, auto b) { return a * b; };

    nlohmann::json errors;
    errors["codec"] = max_abs_error(engine.decode(engine.encode(x)), x);
    errors["encrypt_decrypt"] = max_abs_error(decrypt(cx), x);
    errors["add"] = max_abs_error(decrypt(evaluator.add(cx, cy)), elementwise(x, y, std::plus<>()));
    errors["sub"] = max_abs_error(decrypt(evaluator.sub(cx, cy)), elementwise(x, y, std::minus<>()));
    errors["multiply_plain_rescale"] =
        max_abs_error(decrypt(evaluator.rescale(evaluator.multiply_plain(cx, engine.encode(y)))),
                      elementwise(x, y, times));
    errors["multiply_relinearize_rescale"] =
        max_abs_error(decrypt(evaluator.rescale(evaluator.multiply_relinearize(cx, cy))),
                      elementwise(x, y, times));
    errors["rotate"] = max_abs_error(decrypt(evaluator.rotate(cx, 1)), rotated(x, 1));
    errors["conjugate"] = max_abs_error(decrypt(evaluator.conjugate(cx)),
                                        elementwise(x, x, [](auto a, auto) { return std::conj(a); }));
    double rotate_many = 0;
    const auto many = evaluator.rotate_many_by_steps(cx, steps);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      rotate_many = std::max(rotate_many, max_abs_error(decrypt(many[i]), rotated(x, steps[i])));
    }
    errors["rotate_many_by_steps"] = rotate_many;

    std::cerr << "quickstart: preset " << preset << ", backend " << engine.ntt_backend() << ", seed "
              << engine.seed() << "\n";
    std::cout << errors.dump() << "\n";
  } catch (const fhe::InvalidArgument& e) {
    std::cerr << "quickstart: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
