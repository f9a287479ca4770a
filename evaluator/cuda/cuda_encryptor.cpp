// CudaEncryptor: the host Encryptor's steps on the device. Public key:
// sample u, e0, e1 (one launch), forward NTT of each over the plaintext's
// rows, then c0 = NTT(e0) + b u + m, c1 = NTT(e1) + a u (one launch).
// Secret key: sample e and a, forward NTT of e, then c0 = NTT(e) - a s + m.
#include "evaluator/cuda/cuda_encryptor.h"

#include <string>

#include "evaluator/cuda/encrypt_kernels.h"
#include "evaluator/cuda/sampling_kernels.h"
#include "fhe/ckks/random_words.h"
#include "fhe/core/error.h"

namespace fhe {
namespace {

const CudaEvaluator& checked_evaluator(const CkksEngine& engine, const CudaEvaluator& evaluator) {
  if (&evaluator.engine() != &engine) {
    throw InvalidArgument("CudaEncryptor: the evaluator was built on another engine (preset " +
                          evaluator.engine().preset().name + "); pass the evaluator's own engine");
  }
  return evaluator;
}

}  // namespace

CudaEncryptor::CudaEncryptor(CkksEngine& engine, const CudaEvaluator& evaluator)
    : engine_(engine),
      evaluator_(checked_evaluator(engine, evaluator)),
      plan_(engine.device_plan()),
      keys_(evaluator.keys()),
      n_(engine.ntt_plan().n()),
      q_rows_(engine.preset().q_primes.size()),
      log_n_(engine.preset().log_n) {
  cuda::DeviceGuard guard(engine.device().index);
  u_ = cuda::DeviceBuffer<std::uint64_t>(q_rows_ * n_, "CudaEncryptor workspace (" + engine.device().str() + ")");
}

std::size_t CudaEncryptor::prepare_output(const CudaCiphertext& plaintext, CudaCiphertext& out,
                                          const char* op) const {
  const std::string where = std::string(op) + " (preset " + engine_.preset().name + ")";
  for (const CudaCiphertext* c : {&plaintext, static_cast<const CudaCiphertext*>(&out)}) {
    if (c->max_rows() != q_rows_ || c->n() != n_) {
      throw InvalidArgument(where + ": a device ciphertext not made by this engine's evaluator (make_ciphertext)");
    }
  }
  if (plaintext.parts != 1) {
    throw InvalidArgument(where + ": the plaintext has " + std::to_string(plaintext.parts) +
                          " parts; upload a host Plaintext (one part)");
  }
  if (&plaintext == &out) throw InvalidArgument(where + ": the output must not be the plaintext");
  const std::size_t rows = engine_.preset().active_q_rows(plaintext.level);  // validates the level
  if (plaintext.capacity_words() < rows * n_ || out.capacity_words() < 2 * rows * n_) {
    throw InvalidArgument(where + ": a buffer too small for the plaintext or the 2-part output (make_ciphertext)");
  }
  out.parts = 2;
  out.level = plaintext.level;
  out.scale = plaintext.scale;
  return static_cast<std::size_t>(plaintext.level);
}

void CudaEncryptor::encrypt_at(const CudaCiphertext& plaintext, std::uint64_t index, CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(engine_.device().index);
  const std::size_t first = prepare_output(plaintext, out, "CudaEncryptor::encrypt");
  const std::size_t rows = out.rows();
  const cudaStream_t stream = evaluator_.stream();
  const Modulus<std::uint64_t>* moduli = evaluator_.device_moduli();
  std::uint64_t* c0 = out.part(0);
  std::uint64_t* c1 = out.part(1);
  const cuda::SmallDraw draws[3] = {
      {make_stream_id(RandomPurpose::encrypt_u, index, 0), cuda::SmallDistribution::ternary, u_.data()},
      {make_stream_id(RandomPurpose::encrypt_e, index, 0), cuda::SmallDistribution::gaussian, c0},
      {make_stream_id(RandomPurpose::encrypt_e, index, 1), cuda::SmallDistribution::gaussian, c1}};
  cuda::launch_sample_small(engine_.seed(), draws, 3, first, rows, log_n_, moduli, stream);
  plan_.forward(u_.data(), {first, rows}, {stream});
  plan_.forward_batch(c0, {first, rows}, 2, {stream});  // e0, e1: the parts lie back to back
  const std::uint64_t* key_b = keys_->public_key.data();
  cuda::launch_public_key_finish(c0, c1, u_.data(), plaintext.part(0), key_b, key_b + q_rows_ * n_, first, rows,
                                 log_n_, moduli, stream);
}

void CudaEncryptor::encrypt_symmetric_at(const CudaCiphertext& plaintext, std::uint64_t index,
                                         CudaCiphertext& out) const {
  const cuda::DeviceGuard on_device(engine_.device().index);
  const std::size_t first = prepare_output(plaintext, out, "CudaEncryptor::encrypt_symmetric");
  const std::size_t rows = out.rows();
  const cudaStream_t stream = evaluator_.stream();
  const Modulus<std::uint64_t>* moduli = evaluator_.device_moduli();
  std::uint64_t* c0 = out.part(0);
  std::uint64_t* a = out.part(1);
  const cuda::SmallDraw error{make_stream_id(RandomPurpose::symmetric_e, index, 0),
                              cuda::SmallDistribution::gaussian, c0};
  cuda::launch_sample_small(engine_.seed(), &error, 1, first, rows, log_n_, moduli, stream);
  cuda::launch_sample_uniform(engine_.seed(), make_stream_id(RandomPurpose::symmetric_a, index, 0), a, first, rows,
                              log_n_, moduli, stream);
  plan_.forward(c0, {first, rows}, {stream});
  cuda::launch_secret_key_finish(c0, a, plaintext.part(0), keys_->secret.data(), first, rows, log_n_, moduli,
                                 stream);
}

std::uint64_t CudaEncryptor::encrypt(const CudaCiphertext& plaintext, CudaCiphertext& out) {
  prepare_output(plaintext, out, "CudaEncryptor::encrypt");  // no index is taken for bad operands
  const std::uint64_t index = engine_.take_encryption_index();
  encrypt_at(plaintext, index, out);
  return index;
}

std::uint64_t CudaEncryptor::encrypt_symmetric(const CudaCiphertext& plaintext, CudaCiphertext& out) {
  prepare_output(plaintext, out, "CudaEncryptor::encrypt_symmetric");
  const std::uint64_t index = engine_.take_encryption_index();
  encrypt_symmetric_at(plaintext, index, out);
  return index;
}

}  // namespace fhe
