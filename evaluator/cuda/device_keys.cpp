// Uploading the engine's keys once.
#include "evaluator/cuda/device_keys.h"

#include <span>

#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "fhe/core/parallel_for.h"
#include "fhe/cuda/staged_upload.h"

namespace fhe::cuda {
namespace {

// Key-switching keys are almost all of the upload (305 MiB each at the
// default preset; 35 of them for the BSGS matvec, 128 for the diagonal):
// each key is packed a (digit, row) task at a time on every core into the
// uploader's staging while the previous key is copied.
DeviceSwitchKey upload_switch_key(const KeySwitchKey& key, const SwitchKeyLayout& layout, const std::string& what,
                                  StagedUploader& uploader) {
  for (std::size_t c = 0; c < key.components.size(); ++c) {
    if (key.components[c].b.words().size() != layout.rows * layout.n ||
        key.components[c].a.words().size() != layout.rows * layout.n) {
      throw InvalidArgument(what + ": component " + std::to_string(c) + " is not over all QP rows");
    }
  }
  const std::size_t digit_bytes = layout.digit_bytes();
  DeviceSwitchKey out;
  out.components = key.components.size();
  out.bytes = DeviceBuffer<std::uint8_t>(out.components * digit_bytes, what);
  uploader.upload(out.bytes.data(), out.bytes.size(), [&](std::span<std::uint8_t> staging) {
    parallel_for(out.components * layout.rows, [&](std::size_t task) {
      const KeySwitchComponent& component = key.components[task / layout.rows];
      pack_switch_key_rows(component.b.words(), component.a.words(), layout, task % layout.rows, 1,
                           staging.subspan(task / layout.rows * digit_bytes, digit_bytes));
    });
  });
  return out;
}

// b then a, each over the Q rows.
DeviceBuffer<std::uint64_t> upload_public_key(const PublicKey& key, std::size_t half) {
  if (key.b.words().size() != half || key.a.words().size() != half) {
    throw InvalidArgument("public key: (b, a) are not over all Q rows");
  }
  DeviceBuffer<std::uint64_t> out(2 * half, "public key");
  FHE_CUDA_CHECK(cudaMemcpy(out.data(), key.b.data(), half * 8, cudaMemcpyHostToDevice), "public key");
  FHE_CUDA_CHECK(cudaMemcpy(out.data() + half, key.a.data(), half * 8, cudaMemcpyHostToDevice), "public key");
  return out;
}

}  // namespace

std::size_t device_key_bytes(const CkksEngine& engine) {
  return cuda_key_bytes(engine.preset(), engine.galois_keys().size());
}

DeviceKeys upload_keys(const CkksEngine& engine) {
  DeviceKeys keys;
  keys.switch_key_layout = switch_key_layout(engine.preset());
  const SecretKey& secret = engine.secret_key();  // throws without keys
  keys.source = engine.key_set();
  keys.device = engine.device().index;
  keys.secret = DeviceBuffer<std::uint64_t>::from_host(std::span<const std::uint64_t>(secret.ntt.words()),
                                                       "secret key");
  keys.public_key =
      upload_public_key(engine.public_key(), engine.preset().q_primes.size() * engine.ntt_plan().n());
  StagedUploader uploader;
  keys.relinearization =
      upload_switch_key(engine.relinearization_key(), keys.switch_key_layout, "relinearization key", uploader);
  for (const auto& [element, key] : engine.galois_keys()) {
    DeviceSwitchKey device =
        upload_switch_key(key, keys.switch_key_layout, "Galois key " + std::to_string(element), uploader);
    const std::vector<std::uint32_t>& table = engine.galois_permutation(element);
    device.galois_table = DeviceBuffer<std::uint32_t>::from_host(std::span<const std::uint32_t>(table),
                                                                 "Galois table " + std::to_string(element));
    keys.galois.emplace(element, std::move(device));
  }
  uploader.finish();
  return keys;
}

}  // namespace fhe::cuda
