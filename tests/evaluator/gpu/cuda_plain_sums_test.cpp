// CudaEvaluator::multiply_plain_sums: several plaintext-weighted sums of the
// same extended terms in one pass give, output by output, the words of
// multiply_plain_sum and of the CPU (sum of Evaluator::multiply_plain),
// across the term chunking (> kMaxProductTerms) and the output chunking
// (> kMaxProductOutputs); bad inputs are refused before anything changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/evaluator.h"
#include "fhe/core/error.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr int kTerms = 40;       // > cuda::kMaxProductTerms (two launches a pass); 8 inputs x 5 steps
constexpr int kPlainPool = 17;   // distinct plaintexts, assigned so that no two outputs share a list
static_assert(kTerms > cuda::kMaxProductTerms);

using PlainLists = std::vector<std::vector<const CudaCiphertext*>>;

// Extended terms (baby steps 0, 1, 2, 4, 8 of four inputs) and a pool of
// extended plaintexts, on the host and on the device.
class CudaPlainSums : public ::testing::Test {
 protected:
  void SetUp() override {
    FHE_SKIP_WITHOUT_GPU();
    cpu_engine_ = std::make_unique<CkksEngine>(kPreset, EngineOptions{.seed = 7});
    gpu_engine_ = std::make_unique<CkksEngine>(kPreset, EngineOptions{.device = "cuda:0", .seed = 7});
    cpu_engine_->generate_keys({1, 2, 4, 8});
    gpu_engine_->adopt_keys(*cpu_engine_);
    cpu_ = std::make_unique<Evaluator>(*cpu_engine_);
    gpu_ = std::make_unique<CudaEvaluator>(*gpu_engine_);
    const std::size_t slots = cpu_engine_->slot_count();
    for (std::uint64_t input = 0; host_terms_.size() < kTerms; ++input) {
      const Ciphertext x = cpu_engine_->encrypt_message(testing::random_message(slots, 10 + input));
      for (Ciphertext& term : cpu_->rotate_many_extended(x, {0, 1, 2, 4, 8})) host_terms_.push_back(std::move(term));
    }
    for (const Ciphertext& term : host_terms_) {
      terms_.push_back(gpu_->make_extended());
      gpu_->upload(term, terms_.back());
    }
    for (int p = 0; p < kPlainPool; ++p) {
      std::vector<double> values;
      for (const auto& z : testing::random_message(slots, 100 + static_cast<std::uint64_t>(p))) {
        values.push_back(z.real());
      }
      host_plains_.push_back(cpu_engine_->encode_extended(values));
      plains_.push_back(gpu_->make_extended(1));
      gpu_->upload(host_plains_.back(), plains_.back());
    }
  }

  // Pool index of output j's plaintext for term t: a different list per output.
  static std::size_t plain_index(int j, int t) { return static_cast<std::size_t>(3 * j + 5 * t) % kPlainPool; }

  std::vector<const CudaCiphertext*> term_list() const {
    std::vector<const CudaCiphertext*> list;
    for (const CudaCiphertext& term : terms_) list.push_back(&term);
    return list;
  }
  PlainLists plain_lists(int outputs) const {
    PlainLists lists(static_cast<std::size_t>(outputs));
    for (int j = 0; j < outputs; ++j) {
      for (int t = 0; t < kTerms; ++t) lists[static_cast<std::size_t>(j)].push_back(&plains_[plain_index(j, t)]);
    }
    return lists;
  }
  // The CPU's words of output j: sum_t multiply_plain(term_t, plain_(j,t)).
  Ciphertext host_sum(int j) const {
    Ciphertext sum = cpu_->multiply_plain(host_terms_[0], host_plains_[plain_index(j, 0)]);
    for (int t = 1; t < kTerms; ++t) {
      sum = cpu_->add(sum, cpu_->multiply_plain(host_terms_[static_cast<std::size_t>(t)],
                                                host_plains_[plain_index(j, t)]));
    }
    return sum;
  }
  std::vector<CudaCiphertext> make_outputs(int count) const {
    std::vector<CudaCiphertext> outs;
    for (int j = 0; j < count; ++j) outs.push_back(gpu_->make_extended());
    return outs;
  }

  std::unique_ptr<CkksEngine> cpu_engine_, gpu_engine_;
  std::unique_ptr<Evaluator> cpu_;
  std::unique_ptr<CudaEvaluator> gpu_;
  std::vector<Ciphertext> host_terms_;
  std::vector<Plaintext> host_plains_;
  std::vector<CudaCiphertext> terms_, plains_;
};

// 3 outputs: one output group; 10: two groups (8 + 2), each over two term launches.
TEST_F(CudaPlainSums, EachOutputHasTheWordsOfItsOwnSum) {
  const std::vector<const CudaCiphertext*> terms = term_list();
  for (int outputs : {3, cuda::kMaxProductOutputs + 2}) {
    const PlainLists lists = plain_lists(outputs);
    std::vector<CudaCiphertext> outs = make_outputs(outputs);
    gpu_->multiply_plain_sums(terms, lists, outs);
    CudaCiphertext single = gpu_->make_extended();
    for (int j = 0; j < outputs; ++j) {
      const Ciphertext got = gpu_->download(outs[static_cast<std::size_t>(j)]);
      gpu_->multiply_plain_sum(terms, lists[static_cast<std::size_t>(j)], single);
      EXPECT_TRUE(testing::same_words(got, gpu_->download(single))) << outputs << " outputs, output " << j;
      EXPECT_TRUE(testing::same_words(got, host_sum(j))) << outputs << " outputs, output " << j << " vs CPU";
    }
  }
}

// The kernel sums products exactly in 128 bits and reduces once per launch:
// every word and plaintext at q - 1 is its largest input (a full launch of
// kMaxProductTerms products, then one that carries that sum in).
TEST_F(CudaPlainSums, LargestWordsSumExactly) {
  auto set_to_q_minus_one = [&](RnsPoly& poly) {
    for (std::size_t row = poly.first_row(); row < poly.end_row(); ++row) {
      std::fill_n(poly.row(row), poly.n(), cpu_engine_->rns_basis().prime(row) - 1);
    }
  };
  Ciphertext big_term = host_terms_[0];
  for (RnsPoly& part : big_term.parts) set_to_q_minus_one(part);
  Plaintext big_plain = host_plains_[0];
  set_to_q_minus_one(big_plain.poly);
  CudaCiphertext term = gpu_->make_extended(), plain = gpu_->make_extended(1), out = gpu_->make_extended();
  gpu_->upload(big_term, term);
  gpu_->upload(big_plain, plain);
  const std::vector<const CudaCiphertext*> terms(kTerms, &term), plains(kTerms, &plain);
  gpu_->multiply_plain_sum(terms, plains, out);
  const Ciphertext product = cpu_->multiply_plain(big_term, big_plain);
  Ciphertext expected = product;
  for (int t = 1; t < kTerms; ++t) expected = cpu_->add(expected, product);
  EXPECT_TRUE(testing::same_words(gpu_->download(out), expected));
}

TEST_F(CudaPlainSums, RefusesMismatchedOrAliasedOperandsBeforeAnyChange) {
  const std::vector<const CudaCiphertext*> terms = term_list();
  const PlainLists lists = plain_lists(3);
  std::vector<CudaCiphertext> outs = make_outputs(3);
  auto refused = [&](const std::vector<const CudaCiphertext*>& t, const PlainLists& p, std::span<CudaCiphertext> o,
                     const char* what) {
    std::vector<std::size_t> parts;
    for (const CudaCiphertext& out : outs) parts.push_back(out.parts);
    EXPECT_THROW(gpu_->multiply_plain_sums(t, p, o), InvalidArgument) << what;
    for (std::size_t j = 0; j < outs.size(); ++j) EXPECT_EQ(outs[j].parts, parts[j]) << what << ": output changed";
  };
  refused(terms, lists, std::span<CudaCiphertext>(outs.data(), 2), "2 outputs, 3 plaintext lists");
  refused(terms, {}, std::span<CudaCiphertext>(), "no output");
  refused({}, PlainLists(3), outs, "no term");
  PlainLists short_last = lists;
  short_last.back().pop_back();
  refused(terms, short_last, outs, "19 plaintexts for 20 terms");
  // Outputs that hold valid operands (a term, a plaintext), so only the
  // alias check can refuse them.
  gpu_->copy(terms_[0], outs[0]);
  gpu_->copy(plains_[0], outs[1]);
  std::vector<const CudaCiphertext*> aliased = terms;
  aliased[kTerms - 1] = &outs[0];
  refused(aliased, lists, outs, "an output is a term");
  PlainLists aliased_plain = lists;
  aliased_plain[2][0] = &outs[1];
  refused(terms, aliased_plain, outs, "an output is another output's plaintext");
  std::vector<CudaCiphertext> small = make_outputs(1);
  small.push_back(gpu_->make_extended(1));  // cannot hold a 2-part sum
  EXPECT_THROW(gpu_->multiply_plain_sums(terms, plain_lists(2), small), InvalidArgument);
  EXPECT_EQ(small[0].parts, 0u);
}

}  // namespace
}  // namespace fhe
