// fhe::CudaEncryptor: public-key and secret-key encryption on the engine's
// CUDA device, with the SAME WORDS as the host fhe::Encryptor (engine.encrypt
// / encrypt_symmetric) for the same engine seed, encryption index, plaintext
// and level. Sampling runs on the device through the FHE_HD word definitions
// of fhe/ckks/random_words.h (sampling_kernels.h); every transform goes
// through the engine's device_plan(). Encoding stays on the host (a double
// FFT): encode, upload the plaintext once, then encrypt it on the device.
//
//   fhe::CudaEvaluator gpu(engine);
//   fhe::CudaEncryptor encryptor(engine, gpu);     // shares gpu's stream, keys, moduli
//   fhe::CudaCiphertext plain = gpu.make_ciphertext(), ct = gpu.make_ciphertext();
//   gpu.upload(engine.encode(values, level), plain);
//   encryptor.encrypt(plain, ct);                  // the engine's next index; enqueued
//
// Indices: encrypt() and encrypt_symmetric() take the engine's next
// encryption index (CkksEngine::take_encryption_index), the counter the host
// encrypt() advances, so host and device encryptions of one engine never
// reuse an index and follow the call order. encrypt_at() and
// encrypt_symmetric_at() take an explicit index: they never allocate, never
// synchronise and branch only on metadata, so they can be captured into a
// CUDA graph; a replay reuses the captured index (the same randomness), so
// one captured encryption must not be replayed for different messages.
// Not thread-safe (one workspace and the engine's counter).
#pragma once

#include <cstdint>
#include <memory>

#include "evaluator/cuda/cuda_evaluator.h"

namespace fhe {

class CudaEncryptor {
 public:
  // `evaluator` must be built on `engine`; both must outlive the encryptor.
  // Allocates one workspace of Q rows x N words.
  CudaEncryptor(CkksEngine& engine, const CudaEvaluator& evaluator);

  // (b u + e0 + m, a u + e1) into `out` (2 parts, the plaintext's level and
  // scale) with the engine's next encryption index, which is returned.
  // `plaintext`: one part from the same evaluator (upload of a host
  // Plaintext, or decrypt); `out` must not be `plaintext`.
  std::uint64_t encrypt(const CudaCiphertext& plaintext, CudaCiphertext& out);
  // (-a s + e + m, a), likewise.
  std::uint64_t encrypt_symmetric(const CudaCiphertext& plaintext, CudaCiphertext& out);

  // The same with the encryption index given (graph-capturable).
  void encrypt_at(const CudaCiphertext& plaintext, std::uint64_t index, CudaCiphertext& out) const;
  void encrypt_symmetric_at(const CudaCiphertext& plaintext, std::uint64_t index, CudaCiphertext& out) const;

 private:
  // Validates the operands and sets out's metadata; returns the first row id.
  std::size_t prepare_output(const CudaCiphertext& plaintext, CudaCiphertext& out, const char* op) const;

  CkksEngine& engine_;
  const CudaEvaluator& evaluator_;
  const ntt::NttPlan& plan_;
  std::shared_ptr<const cuda::DeviceKeys> keys_;
  std::size_t n_ = 0, q_rows_ = 0;
  int log_n_ = 0;
  mutable cuda::DeviceBuffer<std::uint64_t> u_;  // NTT(u) of a public-key encryption
};

}  // namespace fhe
