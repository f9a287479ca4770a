// fhe::CkksEngine: the entry point of the CKKS library.
//
// An engine is built from a preset (by name or a custom fhe::Preset) and
// EngineOptions naming the device, the exact NTT backend and the seed. It
// owns the preset, ONE NttPlan over all QP rows (built once; every transform
// of the engine and of evaluators over it goes through that backend), the
// encoder, the keys and the seeded sampler.
//
//   fhe::CkksEngine engine("slots32768-scale40-levels34-int64",
//                          {.device = "cpu", .ntt_backend = "radix2_indexed", .seed = 7});
//   engine.generate_keys({1, 2, 4, 8});            // never timed
//   auto ct = engine.encrypt_message(values);      // encode + public-key encrypt
//   fhe::Evaluator evaluator(engine);              // evaluator/evaluator.h
//   auto product = evaluator.rescale(evaluator.multiply_relinearize(ct, ct));
//   auto decoded = engine.decrypt_message(product); // decrypt + decode
//
// Randomness: every sampled word is a pure function of (seed, stream, row,
// index) (random_words.h); encryption k (counted from 0 per engine) uses its
// own streams, so two engines with the same seed and the same call sequence
// produce identical keys and ciphertexts on every backend.
//
// device = "cuda:N": keys, encoding and encryption stay on the host with
// the CPU plan of the SAME backend (bit-identical by construction, so the
// words equal a CPU engine's); the engine additionally owns that backend's
// CUDA plan over all QP rows (device_plan()), which fhe::CudaEvaluator
// (evaluator/cuda/) uses for every operation on the device, and
// fhe::CudaEncryptor for device encryption with the same words.
//
// Not copyable or movable (components refer to each other); hold it in a
// std::unique_ptr when it must move. Encryption is not thread-safe (it
// advances the encryption counter); const members are.
#pragma once

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/decryptor.h"
#include "fhe/ckks/encoder.h"
#include "fhe/ckks/encryptor.h"
#include "fhe/ckks/key_generator.h"
#include "fhe/ckks/keys.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/sampler.h"
#include "fhe/core/device.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

struct EngineOptions {
  std::string device = "cpu";
  std::string ntt_backend;  // empty: ntt::default_backend(device)
  // Every key and encryption is a function of this seed (0 by default, so
  // runs replay): two engines with one seed hold one secret key, and keys
  // carry at most its 64 bits of entropy. Measurement, not protection of
  // real data, is what the library is for (docs/ckks.md, Randomness).
  std::uint64_t seed = 0;
};

// Everything generate_keys makes. Every NTT backend gives the same words on
// every device, so engines of one preset and seed share one set read-only
// (CkksEngine::adopt_keys) instead of generating and holding copies.
struct EngineKeys {
  SecretKey secret;
  PublicKey public_key;
  KeySwitchKey relinearization;
  GaloisKeys galois;
  std::map<std::uint64_t, std::vector<std::uint32_t>> galois_permutations;
};

class CkksEngine {
 public:
  // Throws InvalidArgument for an unknown preset or backend, a backend that
  // is incompatible with the preset's logN (naming both) or a malformed
  // device; DeviceError for a CUDA device that is absent or not built.
  explicit CkksEngine(std::string_view preset_name, EngineOptions options = {});
  explicit CkksEngine(Preset preset, EngineOptions options = {});
  ~CkksEngine();
  CkksEngine(const CkksEngine&) = delete;
  CkksEngine& operator=(const CkksEngine&) = delete;

  const Preset& preset() const { return preset_; }
  DeviceSpec device() const { return device_; }
  const std::string& ntt_backend() const { return ntt_backend_; }
  std::uint64_t seed() const { return options_.seed; }
  // The host plan (keys, encoding, the CPU Evaluator), on every device.
  const ntt::NttPlan& ntt_plan() const { return *plan_; }
  bool on_cuda() const { return device_.kind == DeviceKind::cuda; }
  // The CUDA plan of the same backend over all QP rows; throws
  // InvalidArgument on a CPU engine.
  const ntt::NttPlan& device_plan() const;
  const RnsBasis& rns_basis() const { return basis_; }
  const CkksEncoder& encoder() const { return *encoder_; }
  std::size_t slot_count() const { return preset_.slots(); }
  // 2^scale_bits, the scale of encode/encrypt_message by default.
  double default_scale() const;

  // Secret, public and relinearization keys, and a Galois key for every
  // rotation step (left rotation by `step` slots, negative = right) and for
  // conjugation when asked. Replaces earlier keys. Never timed.
  void generate_keys(const std::vector<int>& rotation_steps = {}, bool conjugation = false);
  // Shares `other`'s keys (same preset and seed; any backend or device): the
  // words generate_keys would give, without generating or copying them.
  // Throws InvalidArgument naming what differs, or when `other` has none.
  void adopt_keys(const CkksEngine& other);
  // The shared key set (null before generate_keys / adopt_keys); engines
  // with the same pointer hold the same keys.
  const std::shared_ptr<const EngineKeys>& key_set() const { return keys_; }
  bool has_keys() const { return keys_ != nullptr; }
  const SecretKey& secret_key() const;
  const PublicKey& public_key() const;
  const KeySwitchKey& relinearization_key() const;
  const GaloisKeys& galois_keys() const;
  bool has_galois_key(std::uint64_t galois_element) const;
  // Throws InvalidArgument naming the element when its key was not generated.
  const KeySwitchKey& galois_key(std::uint64_t galois_element) const;
  // The NTT-domain permutation of a generated Galois key's automorphism.
  const std::vector<std::uint32_t>& galois_permutation(std::uint64_t galois_element) const;
  std::uint64_t galois_element_for_step(int step) const;
  std::vector<std::uint64_t> galois_elements_for_steps(const std::vector<int>& steps) const;

  // Encoding at `level` (0 = all Q rows) and `scale` (0 = default_scale()).
  Plaintext encode(std::span<const std::complex<double>> values, int level = 0, double scale = 0) const;
  Plaintext encode(std::span<const double> values, int level = 0, double scale = 0) const;
  // The same over the extended rows of `level` (its Q rows and the P rows),
  // for Evaluator::accumulate_rotations (sums with one ModDown).
  Plaintext encode_extended(std::span<const double> values, int level = 0, double scale = 0) const;
  std::vector<std::complex<double>> decode(const Plaintext& plaintext) const;

  // Public-key / secret-key encryption; each call takes the next encryption index.
  Ciphertext encrypt(const Plaintext& plaintext);
  Ciphertext encrypt_symmetric(const Plaintext& plaintext);
  Plaintext decrypt(const Ciphertext& ciphertext) const;

  // encode + public-key encrypt (the ckks-primitive suite's encrypt_message).
  Ciphertext encrypt_message(std::span<const std::complex<double>> values, int level = 0);
  Ciphertext encrypt_message(std::span<const double> values, int level = 0);
  // decrypt + decode (the suite's decrypt_message): N/2 slot values.
  std::vector<std::complex<double>> decrypt_message(const Ciphertext& ciphertext) const;

  // Encryptions done so far (the index of the next one).
  std::uint64_t encryption_count() const { return encryption_count_; }
  // Takes the next encryption index, as encrypt() does, for an encryption
  // made elsewhere (fhe::CudaEncryptor): host and device encryptions of one
  // engine share one counter, so no index (no randomness) is ever reused and
  // the indices follow the call order, as on a CPU engine.
  std::uint64_t take_encryption_index() { return encryption_count_++; }

 private:
  void require_keys(const char* what) const;

  Preset preset_;
  EngineOptions options_;
  DeviceSpec device_;
  std::string ntt_backend_;
  RnsBasis basis_;
  std::unique_ptr<ntt::NttPlan> plan_;         // host (CPU) plan
  std::unique_ptr<ntt::NttPlan> device_plan_;  // CUDA plan, cuda engines only
  std::unique_ptr<CkksEncoder> encoder_;
  Sampler sampler_;
  std::unique_ptr<KeyGenerator> key_generator_;
  std::unique_ptr<Encryptor> encryptor_;

  std::shared_ptr<const EngineKeys> keys_;
  std::uint64_t encryption_count_ = 0;
};

}  // namespace fhe
