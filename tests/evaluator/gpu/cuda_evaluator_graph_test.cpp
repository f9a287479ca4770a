// multiply_relinearize + rescale + rotate + rotate_many captured into one
// CUDA graph and replayed: every replay equals the eager results word for
// word, also after new inputs are staged into the captured input buffers.
// On a preset of 4 digits (unfused key switches, one stream) and one of 5
// (fused: captured, each single key switch forks its ModDown onto the
// evaluator's side stream and joins it back; eagerly it runs on one).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "fhe/cuda/check.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

const std::vector<int> kSteps = {1, 2, 4, 8};

struct Buffers {
  CudaCiphertext a, b, product, scaled, rotated;
  std::vector<CudaCiphertext> rotations;
};

void enqueue(const CudaEvaluator& gpu, Buffers& x) {
  gpu.multiply_relinearize(x.a, x.b, x.product);
  gpu.rescale(x.product, x.scaled);
  gpu.rotate(x.scaled, kSteps.back(), x.rotated);
  gpu.rotate_many_by_steps(x.scaled, kSteps, x.rotations);
}

std::vector<Ciphertext> results(const CudaEvaluator& gpu, const Buffers& x) {
  std::vector<Ciphertext> out{gpu.download(x.scaled), gpu.download(x.rotated)};
  for (const CudaCiphertext& r : x.rotations) out.push_back(gpu.download(r));
  return out;
}

class CudaEvaluatorGraph : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaEvaluatorGraph, ReplaysMatchEagerResults) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine(GetParam(), {.device = "cuda:0", .seed = 77});
  engine.generate_keys(kSteps);
  const CudaEvaluator gpu(engine);
  Buffers x{gpu.make_ciphertext(), gpu.make_ciphertext(), gpu.make_ciphertext(), gpu.make_ciphertext(),
            gpu.make_ciphertext(), {}};
  for (std::size_t i = 0; i < kSteps.size(); ++i) x.rotations.push_back(gpu.make_ciphertext());

  std::vector<Ciphertext> inputs;
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    inputs.push_back(engine.encrypt_message(testing::random_message(engine.slot_count(), seed)));
  }
  // Eager references for two input pairs.
  std::vector<std::vector<Ciphertext>> eager;
  for (int pair = 0; pair < 2; ++pair) {
    gpu.upload(inputs[2 * pair], x.a);
    gpu.upload(inputs[2 * pair + 1], x.b);
    enqueue(gpu, x);
    eager.push_back(results(gpu, x));
  }
  ASSERT_FALSE(testing::same_words(eager[0][0], eager[1][0]));  // the inputs matter

  gpu.upload(inputs[0], x.a);
  gpu.upload(inputs[1], x.b);
  gpu.synchronize();
  cudaGraph_t graph = nullptr;
  FHE_CUDA_CHECK(cudaStreamBeginCapture(gpu.stream(), cudaStreamCaptureModeGlobal));
  enqueue(gpu, x);
  FHE_CUDA_CHECK(cudaStreamEndCapture(gpu.stream(), &graph));
  cudaGraphExec_t exec = nullptr;
  FHE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::size_t nodes = 0;
  FHE_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_GT(nodes, 10u);

  for (int replay = 0; replay < 4; ++replay) {
    const int pair = replay % 2;
    gpu.upload(inputs[2 * pair], x.a);
    gpu.upload(inputs[2 * pair + 1], x.b);
    FHE_CUDA_CHECK(cudaGraphLaunch(exec, gpu.stream()));
    const std::vector<Ciphertext> got = results(gpu, x);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(testing::same_words(got[i], eager[pair][i])) << "replay " << replay << " result " << i;
    }
  }
  FHE_CUDA_CHECK(cudaGraphExecDestroy(exec));
  FHE_CUDA_CHECK(cudaGraphDestroy(graph));
}

INSTANTIATE_TEST_SUITE_P(UnfusedAndFused, CudaEvaluatorGraph,
                         ::testing::Values("test-slots2048-scale40-levels6-int64",
                                           "test-slots4096-scale40-levels8-int64"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           const bool four_digits = info.param.find("levels6") != std::string::npos;
                           return four_digits ? "FourDigitsUnfused" : "FiveDigitsFused";
                         });

}  // namespace
}  // namespace fhe
