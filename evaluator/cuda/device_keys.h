// Keys resident on the device, uploaded once: the secret key (device
// decryption and secret-key encryption), the public key (device public-key
// encryption), the relinearization key and every Galois key of the engine
// with its NTT-domain permutation. Key-switching keys hold one component
// (b, a) over QP rows x N per digit, in switch_key_layout.h's bytes (narrow
// rows in 6 bytes a word).
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "evaluator/switch_key_layout.h"
#include "fhe/ckks/engine.h"
#include "fhe/cuda/device_buffer.h"

namespace fhe::cuda {

struct DeviceSwitchKey {
  DeviceBuffer<std::uint8_t> bytes;  // components x layout.digit_bytes()
  DeviceBuffer<std::uint32_t> galois_table;  // empty for relinearization
  std::size_t components = 0;
};

struct DeviceKeys {
  // The host key set they were uploaded from and the device holding them:
  // an evaluator may use them exactly when its engine holds that key set
  // (the same engine, or one that adopt_keys-ed it) on that device.
  std::shared_ptr<const EngineKeys> source;
  int device = 0;
  DeviceBuffer<std::uint64_t> secret;      // QP rows x N, NTT form
  DeviceBuffer<std::uint64_t> public_key;  // (b, a) x Q rows x N, NTT form
  SwitchKeyLayout switch_key_layout;  // of the relinearization and every Galois key
  DeviceSwitchKey relinearization;
  std::map<std::uint64_t, DeviceSwitchKey> galois;  // by Galois element
};

// Bytes upload_keys will allocate for the engine's current keys.
std::size_t device_key_bytes(const CkksEngine& engine);
// The engine must have keys (InvalidArgument otherwise).
DeviceKeys upload_keys(const CkksEngine& engine);

}  // namespace fhe::cuda
