// Uploading the engine's keys once.
#include "evaluator/cuda/device_keys.h"

#include <array>
#include <span>

#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "fhe/core/parallel_for.h"
#include "fhe/cuda/pinned_buffer.h"
#include "fhe/cuda/stream.h"

namespace fhe::cuda {
namespace {

// Key-switching keys are almost all of the upload (305 MiB each at the
// default preset; 35 of them for the BSGS matvec, 128 for the diagonal).
// Each key's digits are packed on every core into one of two pinned staging
// buffers, and that buffer is copied on a stream while the next key is
// packed into the other: the copy runs at the link's pinned rate, hidden
// behind the packing, where a pageable copy was staged on one thread.
class SwitchKeyUploader {
 public:
  explicit SwitchKeyUploader(const SwitchKeyLayout& layout) : layout_(layout) {}
  SwitchKeyUploader(const SwitchKeyUploader&) = delete;
  SwitchKeyUploader& operator=(const SwitchKeyUploader&) = delete;
  // The staging buffers must outlive the copies that read them (also when
  // an upload threw midway).
  ~SwitchKeyUploader() { cudaStreamSynchronize(stream_.get()); }

  // Returns once the key is packed; its copy may still be in flight.
  DeviceSwitchKey upload(const KeySwitchKey& key, const std::string& what) {
    Slot& slot = slots_[next_++ % slots_.size()];
    if (slot.used) slot.copied.synchronize();
    const std::size_t digit_bytes = layout_.digit_bytes(), components = key.components.size();
    if (slot.staging.size() < components * digit_bytes) {  // pinned on first use: one key, one buffer
      slot.staging = PinnedBuffer<std::uint8_t>(components * digit_bytes, what);
    }
    DeviceSwitchKey out;
    out.components = components;
    out.bytes = DeviceBuffer<std::uint8_t>(components * digit_bytes, what);
    parallel_for(components, [&](std::size_t c) {
      const KeySwitchComponent& component = key.components[c];
      if (component.b.words().size() != layout_.rows * layout_.n ||
          component.a.words().size() != layout_.rows * layout_.n) {
        throw InvalidArgument(what + ": component " + std::to_string(c) + " is not over all QP rows");
      }
      pack_switch_key_digit(component.b.words(), component.a.words(), layout_,
                            slot.staging.span().subspan(c * digit_bytes, digit_bytes));
    });
    FHE_CUDA_CHECK(cudaMemcpyAsync(out.bytes.data(), slot.staging.data(), components * digit_bytes,
                                   cudaMemcpyHostToDevice, stream_.get()),
                   what);
    slot.copied.record(stream_.get());
    slot.used = true;
    return out;
  }
  // Every key on the device, for work on any stream.
  void finish() const { stream_.synchronize(); }

 private:
  struct Slot {
    PinnedBuffer<std::uint8_t> staging;
    Event copied;  // the last copy from `staging`
    bool used = false;
  };
  SwitchKeyLayout layout_;
  Stream stream_;
  std::array<Slot, 2> slots_;
  std::size_t next_ = 0;
};

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
  SwitchKeyUploader uploader(keys.switch_key_layout);
  keys.relinearization = uploader.upload(engine.relinearization_key(), "relinearization key");
  for (const auto& [element, key] : engine.galois_keys()) {
    DeviceSwitchKey device = uploader.upload(key, "Galois key " + std::to_string(element));
    const std::vector<std::uint32_t>& table = engine.galois_permutation(element);
    device.galois_table = DeviceBuffer<std::uint32_t>::from_host(std::span<const std::uint32_t>(table),
                                                                 "Galois table " + std::to_string(element));
    keys.galois.emplace(element, std::move(device));
  }
  uploader.finish();
  return keys;
}

}  // namespace fhe::cuda
