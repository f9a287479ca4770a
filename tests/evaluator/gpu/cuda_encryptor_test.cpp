// Device encryption (fhe::CudaEncryptor) on every backend compatible with an
// int64 and an int32 test preset: public-key and secret-key ciphertexts equal
// the host Encryptor's word for word at level 0 and at a deeper level;
// device decryption gives the message back; host and device encryptions of
// one engine share one index counter; a captured encryption replays to the
// same words; bad operands give InvalidArgument and take no index.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include "evaluator/cuda/cuda_encryptor.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/registry.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Message = std::vector<std::complex<double>>;
constexpr const char* kInt64Preset = "test-slots2048-scale40-levels6-int64";
constexpr const char* kInt32Preset = "test-slots2048-scale25-levels4-int32";

// Decryption error bound of a fresh encryption: the SPEC codec tolerance on
// int64 presets; a 25-bit scale's fresh noise alone is about 4.5e-4 per slot
// at N = 4096 (docs/ckks.md), so int32 presets check correctness only.
double fresh_tolerance(const Preset& preset) { return preset.word == WordType::int64 ? 1e-5 : 1e-2; }

class CudaEncryptorWords : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CudaEncryptorWords, SameWordsAsHostEncryptorAtTwoLevels) {
  FHE_SKIP_WITHOUT_GPU();
  const auto& [preset_name, backend] = GetParam();
  CkksEngine host(preset_name, {.device = "cpu", .ntt_backend = backend, .seed = 2024});
  CkksEngine engine(preset_name, {.device = "cuda:0", .ntt_backend = backend, .seed = 2024});
  host.generate_keys();
  engine.generate_keys();
  const CudaEvaluator gpu(engine);
  CudaEncryptor encryptor(engine, gpu);
  CudaCiphertext plain = gpu.make_ciphertext(), ct = gpu.make_ciphertext();
  const Preset& preset = engine.preset();

  for (const int level : {0, preset.levels - 2}) {
    const Message m = testing::random_message(engine.slot_count(), 10 + static_cast<std::uint64_t>(level));
    const Plaintext p = engine.encode(m, level);
    ASSERT_EQ(p, host.encode(m, level));
    gpu.upload(p, plain);
    const std::string where = preset_name + ", " + backend + ", level " + std::to_string(level);

    const Ciphertext expected = host.encrypt(p);
    EXPECT_EQ(encryptor.encrypt(plain, ct), host.encryption_count() - 1) << where;
    const Ciphertext got = gpu.download(ct);
    EXPECT_EQ(got.level, level);
    EXPECT_TRUE(testing::same_words(got, expected)) << "public key, " << where;
    EXPECT_LT(testing::max_abs_error(engine.decode(gpu.decrypt(ct)), m), fresh_tolerance(preset)) << where;

    const Ciphertext expected_symmetric = host.encrypt_symmetric(p);
    EXPECT_EQ(encryptor.encrypt_symmetric(plain, ct), host.encryption_count() - 1) << where;
    const Ciphertext got_symmetric = gpu.download(ct);
    EXPECT_TRUE(testing::same_words(got_symmetric, expected_symmetric)) << "secret key, " << where;
    EXPECT_FALSE(testing::same_words(got_symmetric, got));  // different keys and randomness
    EXPECT_LT(testing::max_abs_error(engine.decode(gpu.decrypt(ct)), m), fresh_tolerance(preset)) << where;
  }
  EXPECT_EQ(engine.encryption_count(), host.encryption_count());
}

std::vector<std::tuple<std::string, std::string>> preset_backend_pairs() {
  std::vector<std::tuple<std::string, std::string>> pairs;
  for (const char* preset : {kInt64Preset, kInt32Preset}) {
    const int log_n = preset_by_name(preset).log_n;
    for (const ntt::BackendInfo& b : ntt::all_backends()) {
      if (ntt::compatibility(b, log_n).compatible) pairs.emplace_back(preset, b.name);
    }
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(AllBackendsBothWordTypes, CudaEncryptorWords, ::testing::ValuesIn(preset_backend_pairs()),
                         [](const auto& info) {
                           const std::string& preset = std::get<0>(info.param);
                           return preset.substr(preset.rfind('-') + 1) + "_" + std::get<1>(info.param);
                         });

TEST(CudaEncryptor, SharesTheEngineCounterWithHostEncryption) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine host(kInt64Preset, {.device = "cpu", .seed = 31});
  CkksEngine engine(kInt64Preset, {.device = "cuda:0", .seed = 31});
  host.generate_keys();
  engine.generate_keys();
  const CudaEvaluator gpu(engine);
  CudaEncryptor encryptor(engine, gpu);
  const Plaintext p = engine.encode(testing::random_message(engine.slot_count(), 5), 1);
  CudaCiphertext plain = gpu.make_ciphertext(), ct = gpu.make_ciphertext();
  gpu.upload(p, plain);

  // host, device, host, device (symmetric), host on the CUDA engine equals
  // five host encryptions on the CPU engine.
  EXPECT_TRUE(testing::same_words(engine.encrypt(p), host.encrypt(p)));
  EXPECT_EQ(encryptor.encrypt(plain, ct), 1u);
  EXPECT_TRUE(testing::same_words(gpu.download(ct), host.encrypt(p)));
  EXPECT_TRUE(testing::same_words(engine.encrypt(p), host.encrypt(p)));
  EXPECT_EQ(encryptor.encrypt_symmetric(plain, ct), 3u);
  EXPECT_TRUE(testing::same_words(gpu.download(ct), host.encrypt_symmetric(p)));
  EXPECT_TRUE(testing::same_words(engine.encrypt(p), host.encrypt(p)));
  EXPECT_EQ(engine.encryption_count(), 5u);

  // An explicit index reproduces that encryption and takes no index.
  encryptor.encrypt_at(plain, 1, ct);
  CkksEngine replay(kInt64Preset, {.device = "cpu", .seed = 31});
  replay.generate_keys();
  replay.take_encryption_index();
  EXPECT_TRUE(testing::same_words(gpu.download(ct), replay.encrypt(p)));
  EXPECT_EQ(engine.encryption_count(), 5u);
}

TEST(CudaEncryptor, CapturedEncryptionReplaysToTheSameWords) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine(kInt64Preset, {.device = "cuda:0", .seed = 77});
  engine.generate_keys();
  const CudaEvaluator gpu(engine);
  CudaEncryptor encryptor(engine, gpu);
  CudaCiphertext plain = gpu.make_ciphertext(), ct = gpu.make_ciphertext(), ct_symmetric = gpu.make_ciphertext();
  const Plaintext p1 = engine.encode(testing::random_message(engine.slot_count(), 1), 2);
  const Plaintext p2 = engine.encode(testing::random_message(engine.slot_count(), 2), 2);
  const std::uint64_t index = engine.take_encryption_index();

  // Eager references for both plaintexts at the same index.
  std::vector<Ciphertext> eager, eager_symmetric;
  for (const Plaintext* p : {&p1, &p2}) {
    gpu.upload(*p, plain);
    encryptor.encrypt_at(plain, index, ct);
    encryptor.encrypt_symmetric_at(plain, index, ct_symmetric);
    eager.push_back(gpu.download(ct));
    eager_symmetric.push_back(gpu.download(ct_symmetric));
  }
  ASSERT_FALSE(testing::same_words(eager[0], eager[1]));  // the plaintext matters

  gpu.upload(p1, plain);
  gpu.synchronize();
  cudaGraph_t graph = nullptr;
  FHE_CUDA_CHECK(cudaStreamBeginCapture(gpu.stream(), cudaStreamCaptureModeGlobal));
  encryptor.encrypt_at(plain, index, ct);
  encryptor.encrypt_symmetric_at(plain, index, ct_symmetric);
  FHE_CUDA_CHECK(cudaStreamEndCapture(gpu.stream(), &graph));
  cudaGraphExec_t exec = nullptr;
  FHE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::size_t nodes = 0;
  FHE_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_GE(nodes, 8u);  // 3 samplers, 4+ transforms, 2 finishing kernels

  for (int replay = 0; replay < 4; ++replay) {
    const int which = replay % 2;
    gpu.upload(which == 0 ? p1 : p2, plain);  // staged into the captured buffer
    FHE_CUDA_CHECK(cudaMemsetAsync(ct.data(), 0, 2 * ct.part_words() * 8, gpu.stream()));
    FHE_CUDA_CHECK(cudaGraphLaunch(exec, gpu.stream()));
    EXPECT_TRUE(testing::same_words(gpu.download(ct), eager[which])) << "replay " << replay;
    EXPECT_TRUE(testing::same_words(gpu.download(ct_symmetric), eager_symmetric[which])) << "replay " << replay;
  }
  FHE_CUDA_CHECK(cudaGraphExecDestroy(exec));
  FHE_CUDA_CHECK(cudaGraphDestroy(graph));
}

TEST(CudaEncryptor, RejectsBadOperandsWithoutTakingAnIndex) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine(kInt64Preset, {.device = "cuda:0", .seed = 3});
  engine.generate_keys();
  CkksEngine other(kInt64Preset, {.device = "cuda:0", .seed = 3});
  other.generate_keys();
  const CudaEvaluator gpu(engine);
  EXPECT_THROW((CudaEncryptor{other, gpu}), InvalidArgument);
  CudaEncryptor encryptor(engine, gpu);
  CudaCiphertext plain = gpu.make_ciphertext(), ct = gpu.make_ciphertext();
  CudaCiphertext foreign(3, engine.ntt_plan().n());
  gpu.upload(engine.encode(testing::random_message(engine.slot_count(), 4)), plain);
  const std::uint64_t before = engine.encryption_count();
  EXPECT_THROW(encryptor.encrypt(plain, foreign), InvalidArgument);
  EXPECT_THROW(encryptor.encrypt(plain, plain), InvalidArgument);  // aliasing
  EXPECT_THROW(encryptor.encrypt_symmetric(ct, plain), InvalidArgument);  // ct has no parts yet
  encryptor.encrypt(plain, ct);
  EXPECT_THROW(encryptor.encrypt(ct, plain), InvalidArgument);  // a 2-part ciphertext is no plaintext
  EXPECT_EQ(engine.encryption_count(), before + 1);
}

}  // namespace
}  // namespace fhe
