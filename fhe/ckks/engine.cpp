// CkksEngine: option checks, the one NTT plan, keys, encryption.
#include "fhe/ckks/engine.h"

#include <cmath>
#include <set>

#include "fhe/ckks/galois.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/core/parallel_for.h"
#include "fhe/ntt/registry.h"

namespace fhe {
namespace {

// A hand-made preset is checked before anything is built from it.
Preset validated(Preset preset) {
  validate_preset(preset);
  return preset;
}

DeviceSpec checked_device(const Preset& preset, const EngineOptions& options) {
  const DeviceSpec device = parse_device(options.device);
  (void)preset;
  if (device.kind == DeviceKind::cuda) require_device(device);  // DeviceError when absent
  return device;
}

std::string checked_backend(const Preset& preset, const EngineOptions& options, DeviceSpec device) {
  const std::string name =
      options.ntt_backend.empty() ? std::string(ntt::default_backend(device.kind)) : options.ntt_backend;
  const ntt::BackendInfo& backend = ntt::backend_info(name);  // throws for unknown names
  const ntt::Compatibility check = ntt::compatibility(backend, preset.log_n);
  if (!check.compatible) {
    throw InvalidArgument("NTT backend '" + name + "' is incompatible with preset " + preset.name +
                          " (logN " + std::to_string(preset.log_n) + "): " + check.reason);
  }
  return name;
}

}  // namespace

CkksEngine::CkksEngine(std::string_view preset_name, EngineOptions options)
    : CkksEngine(preset_by_name(preset_name), std::move(options)) {}

CkksEngine::CkksEngine(Preset preset, EngineOptions options)
    : preset_(validated(std::move(preset))),
      options_(std::move(options)),
      device_(checked_device(preset_, options_)),
      ntt_backend_(checked_backend(preset_, options_, device_)),
      basis_(preset_),
      sampler_(options_.seed) {
  const std::vector<std::uint64_t> rows = preset_.qp_primes();
  // Host work always uses the CPU plan of the chosen backend; a CUDA engine
  // adds that backend's CUDA plan (same transform, same words).
  plan_ = ntt::make_plan(ntt_backend_, DeviceSpec{}, preset_.log_n, rows, preset_.word);
  if (device_.kind == DeviceKind::cuda) {
    device_plan_ = ntt::make_plan(ntt_backend_, device_, preset_.log_n, rows, preset_.word);
  }
  encoder_ = std::make_unique<CkksEncoder>(preset_, basis_, *plan_);
  key_generator_ = std::make_unique<KeyGenerator>(preset_, basis_, *plan_, sampler_);
  encryptor_ = std::make_unique<Encryptor>(preset_, basis_, *plan_, sampler_);
}

CkksEngine::~CkksEngine() = default;

const ntt::NttPlan& CkksEngine::device_plan() const {
  if (!device_plan_) {
    throw InvalidArgument("CkksEngine on " + device_.str() + " (preset " + preset_.name +
                          ") has no CUDA plan; build it with device \"cuda:N\"");
  }
  return *device_plan_;
}

double CkksEngine::default_scale() const { return std::ldexp(1.0, preset_.scale_bits); }

void CkksEngine::generate_keys(const std::vector<int>& rotation_steps, bool conjugation) {
  auto keys = std::make_shared<EngineKeys>();
  keys->secret = key_generator_->secret_key();
  keys->public_key = key_generator_->public_key(keys->secret);
  std::set<std::uint64_t> elements;
  for (int step : rotation_steps) elements.insert(galois_element_for_step(step));
  if (conjugation) elements.insert(conjugation_galois_element(preset_.log_n));
  elements.erase(1);  // rotation by 0 (mod N/2) needs no key
  // The switch keys by instance: 0 the relinearization key, then the Galois
  // elements. Their digits are independent and their randomness counter-
  // based, so every (key, digit) is built in parallel (a few keys still use
  // every core) with the same words as one after another.
  std::vector<std::uint64_t> instances{0};
  instances.insert(instances.end(), elements.begin(), elements.end());
  const std::size_t digits = key_generator_->digit_count();
  std::vector<KeySwitchKey> switch_keys(instances.size());
  for (KeySwitchKey& key : switch_keys) key.components.resize(digits);
  parallel_for(instances.size() * digits, [&](std::size_t task) {
    const std::size_t k = task / digits, j = task % digits;
    switch_keys[k].components[j] = key_generator_->switch_key_component(keys->secret, instances[k], j);
  });
  keys->relinearization = std::move(switch_keys[0]);
  for (std::size_t k = 1; k < instances.size(); ++k) {
    keys->galois.emplace(instances[k], std::move(switch_keys[k]));
    keys->galois_permutations.emplace(instances[k], galois_ntt_permutation(instances[k], preset_.log_n));
  }
  keys_ = std::move(keys);
}

void CkksEngine::adopt_keys(const CkksEngine& other) {
  if (!other.has_keys()) {
    throw InvalidArgument("adopt_keys: the other engine (preset " + other.preset_.name + ") has no keys yet");
  }
  if (other.preset_.name != preset_.name || other.preset_.qp_primes() != preset_.qp_primes() ||
      other.seed() != seed()) {
    throw InvalidArgument("adopt_keys: keys of preset " + other.preset_.name + " seed " +
                          std::to_string(other.seed()) + " cannot serve preset " + preset_.name + " seed " +
                          std::to_string(seed()) + " (the preset and the seed must match)");
  }
  keys_ = other.keys_;
}

void CkksEngine::require_keys(const char* what) const {
  if (!keys_) {
    throw InvalidArgument(std::string(what) + ": no keys yet on preset " + preset_.name +
                          " (call generate_keys first)");
  }
}

const SecretKey& CkksEngine::secret_key() const {
  require_keys("secret_key");
  return keys_->secret;
}

const PublicKey& CkksEngine::public_key() const {
  require_keys("public_key");
  return keys_->public_key;
}

const KeySwitchKey& CkksEngine::relinearization_key() const {
  require_keys("relinearization_key");
  return keys_->relinearization;
}

const GaloisKeys& CkksEngine::galois_keys() const {
  static const GaloisKeys none;
  return keys_ ? keys_->galois : none;
}

bool CkksEngine::has_galois_key(std::uint64_t galois_element) const {
  return galois_keys().count(galois_element) != 0;
}

const KeySwitchKey& CkksEngine::galois_key(std::uint64_t galois_element) const {
  const auto it = galois_keys().find(galois_element);
  if (it == galois_keys().end()) {
    throw InvalidArgument("no Galois key for element " + std::to_string(galois_element) +
                          " on preset " + preset_.name +
                          " (pass its rotation step or conjugation to generate_keys)");
  }
  return it->second;
}

const std::vector<std::uint32_t>& CkksEngine::galois_permutation(std::uint64_t galois_element) const {
  galois_key(galois_element);  // same error when absent
  return keys_->galois_permutations.at(galois_element);
}

std::uint64_t CkksEngine::galois_element_for_step(int step) const {
  return fhe::galois_element_for_step(step, preset_.log_n);
}

std::vector<std::uint64_t> CkksEngine::galois_elements_for_steps(const std::vector<int>& steps) const {
  std::vector<std::uint64_t> elements;
  elements.reserve(steps.size());
  for (int step : steps) elements.push_back(galois_element_for_step(step));
  return elements;
}

Plaintext CkksEngine::encode(std::span<const std::complex<double>> values, int level,
                             double scale) const {
  return encoder_->encode(values, scale == 0 ? default_scale() : scale, level);
}

Plaintext CkksEngine::encode(std::span<const double> values, int level, double scale) const {
  return encoder_->encode(values, scale == 0 ? default_scale() : scale, level);
}

Plaintext CkksEngine::encode_extended(std::span<const double> values, int level, double scale) const {
  const std::vector<std::complex<double>> complex_values(values.begin(), values.end());
  return encoder_->encode_extended(complex_values, scale == 0 ? default_scale() : scale, level);
}

std::vector<std::complex<double>> CkksEngine::decode(const Plaintext& plaintext) const {
  return encoder_->decode(plaintext);
}

Ciphertext CkksEngine::encrypt(const Plaintext& plaintext) {
  require_keys("encrypt");
  return encryptor_->encrypt(plaintext, keys_->public_key, encryption_count_++);
}

Ciphertext CkksEngine::encrypt_symmetric(const Plaintext& plaintext) {
  require_keys("encrypt_symmetric");
  return encryptor_->encrypt_symmetric(plaintext, keys_->secret, encryption_count_++);
}

Plaintext CkksEngine::decrypt(const Ciphertext& ciphertext) const {
  require_keys("decrypt");
  return fhe::decrypt(ciphertext, keys_->secret, basis_);
}

Ciphertext CkksEngine::encrypt_message(std::span<const std::complex<double>> values, int level) {
  return encrypt(encode(values, level));
}

Ciphertext CkksEngine::encrypt_message(std::span<const double> values, int level) {
  return encrypt(encode(values, level));
}

std::vector<std::complex<double>> CkksEngine::decrypt_message(const Ciphertext& ciphertext) const {
  return decode(decrypt(ciphertext));
}

}  // namespace fhe
