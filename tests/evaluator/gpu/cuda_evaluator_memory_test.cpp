// The device-memory estimate: a refusal with needed vs free bytes when the
// device is (made to look) too small, and an estimate that covers the keys.
#include <gtest/gtest.h>

#include <string>

#include "evaluator/switch_key_layout.h"
#include "tests/evaluator/gpu/gpu_test_util.h"

namespace fhe {
namespace {

TEST(CudaEvaluatorMemory, RefusesWhenTheEstimateExceedsFreeMemory) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine("test-slots2048-scale40-levels6-int64", {.device = "cuda:0", .seed = 5});
  engine.generate_keys({1, 2});
  const CudaMemoryEstimate estimate = CudaEvaluator::estimate_memory(engine);
  const Preset& p = engine.preset();
  const std::size_t one_key = key_switch_digits(p).size() * switch_key_layout(p).digit_bytes();
  EXPECT_GE(estimate.key_bytes, 3 * one_key);  // relinearization + 2 Galois keys
  EXPECT_GT(estimate.workspace_bytes, 0u);
  try {
    CudaEvaluator gpu(engine, {.assume_free_bytes = estimate.total() - 1});
    FAIL() << "an evaluator was built on a device one byte too small";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs " + std::to_string(estimate.total()) + " bytes"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(estimate.total() - 1) + " bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("free"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(CudaEvaluator(engine, {.assume_free_bytes = estimate.total()}));
}

}  // namespace
}  // namespace fhe
