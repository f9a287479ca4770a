// Every operation of the CUDA evaluator on every backend compatible with a
// small preset: the same words as the CPU Evaluator for the same seed, keys
// and inputs, and decryption errors within the SPEC tolerances.
#include <gtest/gtest.h>

#include <complex>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "evaluator/evaluator.h"
#include "fhe/ntt/registry.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Message = std::vector<std::complex<double>>;
constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr double kAddTolerance = 2e-5, kKeySwitchTolerance = 2e-5, kMultiplyTolerance = 3e-5;
// rotate_many: more rotations than one launch takes (four), step 0 among them.
const std::vector<int> kSteps = {1, 0, 2, 4, 8, -3};

Message rotated(const Message& x, int step) {
  const auto slots = static_cast<int>(x.size());
  Message out(x.size());
  for (int i = 0; i < slots; ++i) out[i] = x[((i + step) % slots + slots) % slots];
  return out;
}

class CudaEvaluatorWords : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaEvaluatorWords, SameWordsAsCpuAndWithinTolerance) {
  FHE_SKIP_WITHOUT_GPU();
  const std::string backend = GetParam();
  CkksEngine cpu_engine(kPreset, {.device = "cpu", .ntt_backend = backend, .seed = 2024});
  CkksEngine gpu_engine(kPreset, {.device = "cuda:0", .ntt_backend = backend, .seed = 2024});
  for (CkksEngine* e : {&cpu_engine, &gpu_engine}) e->generate_keys({1, 2, 4, 8, -3}, true);
  ASSERT_EQ(cpu_engine.relinearization_key(), gpu_engine.relinearization_key());
  const Evaluator cpu(cpu_engine);
  const CudaEvaluator gpu(gpu_engine);

  const Message x = testing::random_message(gpu_engine.slot_count(), 1);
  const Message y = testing::random_message(gpu_engine.slot_count(), 2);
  const Message w = testing::random_message(gpu_engine.slot_count(), 3);
  const Ciphertext cx = cpu_engine.encrypt_message(x), cy = cpu_engine.encrypt_message(y);
  ASSERT_EQ(gpu_engine.encrypt_message(x), cx);  // the engines' host work is identical
  ASSERT_EQ(gpu_engine.encrypt_message(y), cy);
  const Plaintext pw = cpu_engine.encode(w);

  CudaCiphertext dx = gpu.make_ciphertext(), dy = gpu.make_ciphertext(), dw = gpu.make_ciphertext();
  CudaCiphertext out = gpu.make_ciphertext(), out2 = gpu.make_ciphertext();
  gpu.upload(cx, dx);
  gpu.upload(cy, dy);
  gpu.upload(pw, dw);
  EXPECT_TRUE(testing::same_words(gpu.download(dx), cx));

  auto check = [&](const char* name, const Ciphertext& expected_words, const Message& expected, double tol) {
    const Ciphertext got = gpu.download(out);
    EXPECT_TRUE(testing::same_words(got, expected_words)) << name << " on " << backend;
    EXPECT_LT(testing::max_abs_error(gpu_engine.decrypt_message(got), expected), tol) << name;
  };
  Message sum(x.size()), diff(x.size()), neg(x.size()), xw(x.size()), xy(x.size()), conj(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum[i] = x[i] + y[i], diff[i] = x[i] - y[i], neg[i] = -x[i];
    xw[i] = x[i] * w[i], xy[i] = x[i] * y[i], conj[i] = std::conj(x[i]);
  }
  gpu.add(dx, dy, out);
  check("add", cpu.add(cx, cy), sum, kAddTolerance);
  gpu.sub(dx, dy, out);
  check("sub", cpu.sub(cx, cy), diff, kAddTolerance);
  gpu.negate(dx, out);
  check("negate", cpu.negate(cx), neg, kAddTolerance);
  gpu.multiply_plain(dx, dw, out2);
  gpu.rescale(out2, out);
  check("multiply_plain+rescale", cpu.rescale(cpu.multiply_plain(cx, pw)), xw, kMultiplyTolerance);
  gpu.multiply(dx, dy, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.multiply(cx, cy))) << "multiply (3 parts)";
  gpu.multiply_relinearize(dx, dy, out2);
  EXPECT_TRUE(testing::same_words(gpu.download(out2), cpu.multiply_relinearize(cx, cy)));
  gpu.rescale(out2, out);
  check("multiply_relinearize+rescale", cpu.rescale(cpu.multiply_relinearize(cx, cy)), xy, kMultiplyTolerance);
  for (int step : {1, -3}) {
    gpu.rotate(dx, step, out);
    check("rotate", cpu.rotate(cx, step), rotated(x, step), kKeySwitchTolerance);
  }
  gpu.conjugate(dx, out);
  check("conjugate", cpu.conjugate(cx), conj, kKeySwitchTolerance);

  std::vector<CudaCiphertext> many;
  for (std::size_t i = 0; i < kSteps.size(); ++i) many.push_back(gpu.make_ciphertext());
  gpu.rotate_many_by_steps(dx, kSteps, many);
  const std::vector<Ciphertext> expected_many = cpu.rotate_many_by_steps(cx, kSteps);
  for (std::size_t i = 0; i < kSteps.size(); ++i) {
    const Ciphertext got = gpu.download(many[i]);
    EXPECT_TRUE(testing::same_words(got, expected_many[i])) << "rotate_many step " << kSteps[i];
    EXPECT_LT(testing::max_abs_error(gpu_engine.decrypt_message(got), rotated(x, kSteps[i])), kKeySwitchTolerance);
  }

  // Sums of rotations with one ModDown: the CPU's words, over more terms
  // than one launch takes (step 0 included) and split across two calls.
  // Every other plaintext has period 8 (stored one word a block of n / 16),
  // the others no period (every word stored).
  {
    const std::vector<int> steps = {0, 1, 2, 4, 8, 1, 2, 4, 8, -3};
    std::vector<Plaintext> plains;
    std::vector<CudaBlockPlain> device_plains;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      std::vector<double> values(gpu_engine.slot_count());
      const std::size_t period = i % 2 == 0 ? 8 : w.size();
      for (std::size_t j = 0; j < values.size(); ++j) values[j] = w[(j + i) % period].real();
      plains.push_back(cpu_engine.encode_extended(values));
      device_plains.push_back(gpu.upload_blocks(plains.back()));
      EXPECT_EQ(device_plains.back().block_log, i % 2 == 0 ? gpu_engine.ntt_plan().log_n() - 4 : 0) << i;
    }
    std::vector<const Plaintext*> host_list;
    std::vector<const CudaBlockPlain*> device_list;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      host_list.push_back(&plains[i]);
      device_list.push_back(&device_plains[i]);
    }
    Ciphertext host_sum;
    cpu.accumulate_rotations(cx, steps, host_list, host_sum);
    CudaCiphertext device_sum = gpu.make_extended();
    const std::vector<int> head(steps.begin(), steps.begin() + 3), tail(steps.begin() + 3, steps.end());
    const std::vector<const CudaBlockPlain*> head_plains(device_list.begin(), device_list.begin() + 3);
    const std::vector<const CudaBlockPlain*> tail_plains(device_list.begin() + 3, device_list.end());
    gpu.accumulate_rotations(dx, head, head_plains, device_sum);
    gpu.accumulate_rotations(dx, tail, tail_plains, device_sum);
    EXPECT_TRUE(testing::same_words(gpu.download(device_sum), host_sum)) << "extended sum";
    gpu.mod_down(device_sum, out);
    EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.mod_down(host_sum))) << "mod_down";
    EXPECT_TRUE(testing::same_words(gpu.download(device_sum), host_sum)) << "mod_down keeps the sum";
    gpu.mod_down_rescale(device_sum, out);
    EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.mod_down_rescale(host_sum))) << "mod_down_rescale";
    EXPECT_TRUE(testing::same_words(gpu.download(device_sum), host_sum)) << "mod_down_rescale keeps the sum";

    // Stored terms (BSGS baby steps), their plaintext-weighted sum, and a
    // null plaintext (times 1).
    const std::vector<int> baby = {0, 1, 2, 4};
    const std::vector<Ciphertext> host_terms = cpu.rotate_many_extended(cx, baby);
    std::vector<CudaCiphertext> device_terms;
    for (std::size_t i = 0; i < baby.size(); ++i) device_terms.push_back(gpu.make_extended());
    gpu.rotate_many_extended(dx, baby, device_terms);
    Ciphertext host_products = cpu.multiply_plain(host_terms[0], plains[0]);
    std::vector<const CudaCiphertext*> term_list, plain_list;
    std::vector<CudaCiphertext> every_word;  // the plaintexts with every word stored
    for (std::size_t i = 0; i < baby.size(); ++i) {
      every_word.push_back(gpu.make_extended(1));
      gpu.upload(plains[i], every_word.back());
    }
    for (std::size_t i = 0; i < baby.size(); ++i) {
      EXPECT_TRUE(testing::same_words(gpu.download(device_terms[i]), host_terms[i])) << "term " << baby[i];
      if (i > 0) host_products = cpu.add(host_products, cpu.multiply_plain(host_terms[i], plains[i]));
      term_list.push_back(&device_terms[i]);
      plain_list.push_back(&every_word[i]);
    }
    CudaCiphertext device_products = gpu.make_extended();
    gpu.multiply_plain_sum(term_list, plain_list, device_products);
    EXPECT_TRUE(testing::same_words(gpu.download(device_products), host_products)) << "multiply_plain_sum";
    // The same sum from block plaintexts (the lazy BSGS's diagonals).
    const std::vector<const CudaBlockPlain*> block_list(device_list.begin(), device_list.begin() + 4);
    CudaCiphertext device_block_products = gpu.make_extended();
    gpu.multiply_plain_sums(term_list, std::span<const std::vector<const CudaBlockPlain*>>(&block_list, 1),
                            std::span<CudaCiphertext>(&device_block_products, 1));
    EXPECT_TRUE(testing::same_words(gpu.download(device_block_products), host_products)) << "block plaintexts";
    // BSGS giant steps from the extended form: the inner sum rotated (only
    // its c1 brought down for the key switch), step 0, another step.
    Ciphertext host_giant;
    for (int step : {2, 0, -3}) cpu.accumulate_extended_rotation(host_products, step, host_giant);
    CudaCiphertext device_giant = gpu.make_extended();
    for (int step : {2, 0, -3}) gpu.accumulate_extended_rotation(device_products, step, device_giant);
    EXPECT_TRUE(testing::same_words(gpu.download(device_giant), host_giant)) << "extended rotations";
    // The same three at once: the two c1 come down in one batched ModDown.
    const std::vector<const CudaCiphertext*> three(3, &device_products);
    CudaCiphertext device_giants = gpu.make_extended();
    gpu.accumulate_extended_rotations(three, {2, 0, -3}, device_giants);
    EXPECT_TRUE(testing::same_words(gpu.download(device_giants), host_giant)) << "extended rotations at once";
    EXPECT_TRUE(testing::same_words(gpu.download(device_products), host_products)) << "the rotated term is kept";
    Ciphertext host_plain_ones;
    cpu.accumulate_rotations(cx, {4, 0}, {nullptr, nullptr}, host_plain_ones);
    CudaCiphertext device_plain_ones = gpu.make_extended();
    gpu.accumulate_rotations(dx, {4, 0}, {nullptr, nullptr}, device_plain_ones);
    EXPECT_TRUE(testing::same_words(gpu.download(device_plain_ones), host_plain_ones)) << "null plaintexts";

    // Several sums of the same rotations at once (a lazy BSGS's inner sums
    // from its baby steps): each sum the words of its own accumulate_rotations,
    // over more terms than one launch takes (36: 32 + 4, step 0 among them)
    // and more sums than one pass holds (5: 4 + 1), one sum already started
    // and one whose plaintexts are all null (times 1: the terms' scale).
    {
      const std::vector<int> cycle = {0, 1, 2, 4, 8, -3};
      std::vector<int> many_steps;
      for (std::size_t i = 0; i < 36; ++i) many_steps.push_back(cycle[i % cycle.size()]);
      constexpr std::size_t kSums = 5;
      std::vector<std::vector<const Plaintext*>> host_lists(kSums);
      std::vector<std::vector<const CudaBlockPlain*>> device_lists(kSums);
      for (std::size_t j = 0; j < kSums; ++j) {
        for (std::size_t i = 0; i < many_steps.size(); ++i) {
          const bool one = j == 3;
          host_lists[j].push_back(one ? nullptr : &plains[(i + 3 * j) % plains.size()]);
          device_lists[j].push_back(one ? nullptr : device_list[(i + 3 * j) % plains.size()]);
        }
      }
      std::vector<Ciphertext> host_sums(kSums);
      std::vector<CudaCiphertext> device_sums;
      for (std::size_t j = 0; j < kSums; ++j) device_sums.push_back(gpu.make_extended());
      cpu.accumulate_rotations(cx, {2}, {&plains[2]}, host_sums[2]);  // started before
      gpu.accumulate_rotations(dx, {2}, {device_list[2]}, device_sums[2]);
      for (std::size_t j = 0; j < kSums; ++j) cpu.accumulate_rotations(cx, many_steps, host_lists[j], host_sums[j]);
      gpu.accumulate_rotations(dx, many_steps, device_lists, device_sums);
      for (std::size_t j = 0; j < kSums; ++j) {
        EXPECT_TRUE(testing::same_words(gpu.download(device_sums[j]), host_sums[j])) << "rotation sum " << j;
      }
      // Refused before any sum changes: a list per sum, a plaintext per step.
      std::vector<CudaCiphertext> fresh;
      for (int j = 0; j < 2; ++j) fresh.push_back(gpu.make_extended());
      const std::span<const std::vector<const CudaBlockPlain*>> two_lists(device_lists.data(), 2);
      EXPECT_THROW(gpu.accumulate_rotations(dx, many_steps, two_lists.first(1), fresh), InvalidArgument);
      EXPECT_THROW(gpu.accumulate_rotations(dx, {1, 2}, two_lists, fresh), InvalidArgument);
      for (const CudaCiphertext& sum : fresh) EXPECT_EQ(sum.parts, 0u) << "a refused call changed a sum";
    }

    // One rotation per call (BSGS giant steps: the ModUp's last pass fused
    // with the key product), starting a sum and then adding to it.
    Ciphertext host_single;
    cpu.accumulate_rotations(cx, {1}, {&plains[1]}, host_single);
    cpu.accumulate_rotations(cx, {-3}, {&plains[9]}, host_single);
    CudaCiphertext device_single = gpu.make_extended();
    gpu.accumulate_rotations(dx, {1}, {device_list[1]}, device_single);
    gpu.accumulate_rotations(dx, {-3}, {device_list[9]}, device_single);
    EXPECT_TRUE(testing::same_words(gpu.download(device_single), host_single)) << "single-rotation sums";
  }

  // Level-specific key switching: drop to level 3, then key switch there.
  CudaCiphertext lx = gpu.make_ciphertext(), ly = gpu.make_ciphertext();
  gpu.drop_level(dx, 3, lx);
  gpu.drop_level(dy, 3, ly);
  const Ciphertext cx3 = cpu.drop_level(cx, 3), cy3 = cpu.drop_level(cy, 3);
  EXPECT_TRUE(testing::same_words(gpu.download(lx), cx3));
  gpu.multiply_relinearize(lx, ly, out2);
  gpu.rescale(out2, out);
  check("level 3 multiply_relinearize+rescale", cpu.rescale(cpu.multiply_relinearize(cx3, cy3)), xy,
        kMultiplyTolerance);
  gpu.rotate(lx, 2, out);
  check("level 3 rotate", cpu.rotate(cx3, 2), rotated(x, 2), kKeySwitchTolerance);
  {
    const Plaintext p3 = cpu_engine.encode_extended(std::vector<double>(gpu_engine.slot_count(), 0.5), 3);
    const CudaBlockPlain d3 = gpu.upload_blocks(p3);  // one value: one word a row
    EXPECT_EQ(d3.block_log, gpu_engine.ntt_plan().log_n());
    CudaCiphertext sum3 = gpu.make_extended();
    Ciphertext host3;
    cpu.accumulate_rotations(cx3, {2, 0}, {&p3, &p3}, host3);
    gpu.accumulate_rotations(lx, {2, 0}, {&d3, &d3}, sum3);
    gpu.mod_down(sum3, out);
    EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.mod_down(host3))) << "level 3 extended sum";
    gpu.mod_down_rescale(sum3, out);
    EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.mod_down_rescale(host3))) << "level 3 mod_down_rescale";
    const std::vector<const CudaBlockPlain*> d3_list = {&d3};
    const std::vector<const CudaCiphertext*> sum3_list = {&sum3};
    CudaCiphertext product3 = gpu.make_extended();
    gpu.multiply_plain_sums(sum3_list, std::span<const std::vector<const CudaBlockPlain*>>(&d3_list, 1),
                            std::span<CudaCiphertext>(&product3, 1));
    EXPECT_TRUE(testing::same_words(gpu.download(product3), cpu.multiply_plain(host3, p3))) << "level 3 blocks";
    Ciphertext host_giant3;
    cpu.accumulate_extended_rotation(host3, -3, host_giant3);
    CudaCiphertext giant3 = gpu.make_extended();
    gpu.accumulate_extended_rotation(sum3, -3, giant3);
    EXPECT_TRUE(testing::same_words(gpu.download(giant3), host_giant3)) << "level 3 extended rotation";
    Ciphertext host_single3;
    cpu.accumulate_rotations(cx3, {2}, {nullptr}, host_single3);
    cpu.accumulate_rotations(cx3, {-3}, {nullptr}, host_single3);
    CudaCiphertext single3 = gpu.make_extended();
    gpu.accumulate_rotations(lx, {2}, {nullptr}, single3);
    gpu.accumulate_rotations(lx, {-3}, {nullptr}, single3);
    EXPECT_TRUE(testing::same_words(gpu.download(single3), host_single3)) << "level 3 single-rotation sums";
  }

  // Device decryption: the same plaintext words as the host decryptor.
  const Plaintext decrypted = gpu.decrypt(dx);
  EXPECT_EQ(decrypted, cpu_engine.decrypt(cx));
}

// Key switching on both sides of the fused path's digit counts
// (kMinFusedDigits) and on 32-bit words (the NTT kernels' narrow
// instantiations): the CPU's words for relinearization, rotations, hoisted
// rotations and single-rotation sums at level 0.
struct KeySwitchCase {
  std::string preset;
  std::string backend;
};

void PrintTo(const KeySwitchCase& c, std::ostream* os) { *os << c.preset << " / " << c.backend; }

// Level-0 digits: 3 (unfused), 5 (fused, two output tiles a block), 15
// (fused, 32-bit words); radix8_compact at 7 below.
const std::vector<std::string> kKeySwitchPresets = {"test-slots2048-scale25-levels4-int32",
                                                    "test-slots4096-scale40-levels8-int64",
                                                    "slots8192-scale25-levels14-int32"};

class CudaKeySwitchWords : public ::testing::TestWithParam<KeySwitchCase> {};

TEST_P(CudaKeySwitchWords, SameWordsAsCpu) {
  FHE_SKIP_WITHOUT_GPU();
  const KeySwitchCase& c = GetParam();
  CkksEngine cpu_engine(c.preset, {.device = "cpu", .ntt_backend = c.backend, .seed = 77});
  CkksEngine gpu_engine(c.preset, {.device = "cuda:0", .ntt_backend = c.backend, .seed = 77});
  for (CkksEngine* e : {&cpu_engine, &gpu_engine}) e->generate_keys({1, 4}, true);
  const Evaluator cpu(cpu_engine);
  const CudaEvaluator gpu(gpu_engine);
  const Ciphertext cx = cpu_engine.encrypt_message(testing::random_message(gpu_engine.slot_count(), 5));
  const Ciphertext cy = cpu_engine.encrypt_message(testing::random_message(gpu_engine.slot_count(), 6));
  CudaCiphertext dx = gpu.make_ciphertext(), dy = gpu.make_ciphertext(), out = gpu.make_ciphertext();
  gpu.upload(cx, dx);
  gpu.upload(cy, dy);
  gpu.multiply_relinearize(dx, dy, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.multiply_relinearize(cx, cy))) << "relinearize";
  gpu.rotate(dx, 4, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.rotate(cx, 4))) << "rotate";
  gpu.conjugate(dx, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.conjugate(cx))) << "conjugate";
  // Two hoisted steps (at 5 or more digits one fused region feeds both).
  std::vector<CudaCiphertext> many;
  for (int i = 0; i < 2; ++i) many.push_back(gpu.make_ciphertext());
  gpu.rotate_many_by_steps(dx, {4, 1}, many);
  const std::vector<Ciphertext> host_many = cpu.rotate_many_by_steps(cx, {4, 1});
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(testing::same_words(gpu.download(many[i]), host_many[i])) << "rotate_many " << i;
  }
  Ciphertext host_sum;
  cpu.accumulate_rotations(cx, {1}, {nullptr}, host_sum);
  cpu.accumulate_rotations(cy, {4}, {nullptr}, host_sum);
  CudaCiphertext device_sum = gpu.make_extended();
  gpu.accumulate_rotations(dx, {1}, {nullptr}, device_sum);
  gpu.accumulate_rotations(dy, {4}, {nullptr}, device_sum);
  EXPECT_TRUE(testing::same_words(gpu.download(device_sum), host_sum)) << "single-rotation sums";
  // That sum's rotations from its extended form (fused and unfused key switches).
  Ciphertext host_giant;
  cpu.accumulate_extended_rotation(host_sum, 4, host_giant);
  cpu.accumulate_extended_rotation(host_sum, 1, host_giant);
  CudaCiphertext device_giant = gpu.make_extended();
  gpu.accumulate_extended_rotation(device_sum, 4, device_giant);
  gpu.accumulate_extended_rotation(device_sum, 1, device_giant);
  EXPECT_TRUE(testing::same_words(gpu.download(device_giant), host_giant)) << "extended rotations";
  // The P rows and one Q row divided out at once (1 to 4 P rows, 32-bit words).
  gpu.mod_down_rescale(device_giant, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.mod_down_rescale(host_giant))) << "mod_down_rescale";
}

std::vector<KeySwitchCase> key_switch_cases() {
  std::vector<KeySwitchCase> cases;
  for (const std::string& preset : kKeySwitchPresets) {
    const int log_n = preset_by_name(preset).log_n;
    for (const ntt::BackendInfo& b : ntt::all_backends()) {
      if (ntt::compatibility(b, log_n).compatible) cases.push_back({preset, std::string(b.name)});
    }
  }
  // The fused kernel's 6-stage region (radix8 is not compatible with the
  // presets above at 5 or more digits): 7 digits at logN 15.
  cases.push_back({"slots16384-scale50-levels12-int64", "radix8_compact"});
  return cases;
}

std::vector<std::string> compatible_backends() {
  std::vector<std::string> names;
  const int log_n = preset_by_name(kPreset).log_n;
  for (const ntt::BackendInfo& b : ntt::all_backends()) {
    if (ntt::compatibility(b, log_n).compatible) names.emplace_back(b.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CudaEvaluatorWords, ::testing::ValuesIn(compatible_backends()),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(PresetsAndBackends, CudaKeySwitchWords, ::testing::ValuesIn(key_switch_cases()),
                         [](const auto& info) {
                           const Preset& preset = preset_by_name(info.param.preset);
                           return "logN" + std::to_string(preset.log_n) + "_" +
                                  std::string(word_type_name(preset.word)) + "_" + info.param.backend;
                         });

// The key switches drop their scratch words from L2 without writing them
// back (discard_line_from_l2); never an operand's. Each input is written
// just before its operation (so its lines are dirty in L2, where a wrong
// discard would lose them) and must read back unchanged after it.
TEST(CudaEvaluator, OperationsLeaveTheirInputsWhole) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine("test-slots4096-scale40-levels8-int64", {.device = "cuda:0", .seed = 12});
  engine.generate_keys({1, 4}, true);
  const CudaEvaluator gpu(engine);
  CudaCiphertext dx = gpu.make_ciphertext(), dy = gpu.make_ciphertext(), product = gpu.make_ciphertext();
  CudaCiphertext relinearized = gpu.make_ciphertext(), out = gpu.make_ciphertext();
  CudaCiphertext sum = gpu.make_extended(), giant = gpu.make_extended();
  gpu.upload(engine.encrypt_message(testing::random_message(engine.slot_count(), 7)), dx);
  gpu.upload(engine.encrypt_message(testing::random_message(engine.slot_count(), 8)), dy);
  const auto expect_whole = [&](const CudaCiphertext& input, const char* operation, auto&& run) {
    const Ciphertext before = gpu.download(input);
    run();
    EXPECT_TRUE(testing::same_words(gpu.download(input), before)) << operation;
  };
  gpu.multiply(dx, dy, product);
  expect_whole(product, "relinearize", [&] { gpu.relinearize(product, relinearized); });
  expect_whole(relinearized, "rescale", [&] { gpu.rescale(relinearized, out); });
  expect_whole(dx, "rotate", [&] { gpu.rotate(dx, 4, out); });
  gpu.accumulate_rotations(dx, {1}, {nullptr}, sum);
  expect_whole(sum, "mod_down", [&] { gpu.mod_down(sum, out); });
  expect_whole(sum, "accumulate_extended_rotation", [&] { gpu.accumulate_extended_rotation(sum, 4, giant); });
  expect_whole(giant, "mod_down_rescale", [&] { gpu.mod_down_rescale(giant, out); });
}

TEST(CudaEvaluator, RejectsCpuEngineAndForeignOutputs) {
  CkksEngine cpu_engine(kPreset, {.seed = 1});
  cpu_engine.generate_keys();
  EXPECT_THROW(CudaEvaluator{cpu_engine}, InvalidArgument);
  EXPECT_THROW(cpu_engine.device_plan(), InvalidArgument);
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine(kPreset, {.device = "cuda:0", .seed = 1});
  engine.generate_keys({1});
  const CudaEvaluator gpu(engine);
  CudaCiphertext a = gpu.make_ciphertext(), foreign(3, engine.ntt_plan().n());
  gpu.upload(engine.encrypt_message(testing::random_message(engine.slot_count(), 4)), a);
  EXPECT_THROW(gpu.add(a, a, foreign), InvalidArgument);
  EXPECT_THROW(gpu.rotate(a, 5, a), InvalidArgument);  // no key for step 5
  EXPECT_THROW(gpu.rescale(a, a), InvalidArgument);    // aliasing
  CudaCiphertext one_part = gpu.make_extended(1);      // a plaintext buffer cannot hold a sum
  EXPECT_THROW(gpu.accumulate_rotations(a, {1}, {nullptr}, one_part), InvalidArgument);
  EXPECT_THROW(gpu.accumulate_rotations(a, {1}, {nullptr}, foreign), InvalidArgument);
  CudaCiphertext sum = gpu.make_extended(), rotated = gpu.make_extended(), scratch = gpu.make_ciphertext();
  gpu.accumulate_rotations(a, {1}, {nullptr}, sum);
  // Block plaintexts: only encode_extended ones upload, and one of another
  // level weights no sum of this one.
  const std::vector<double> half(engine.slot_count(), 0.5);
  EXPECT_THROW(gpu.upload_blocks(engine.encode(half)), InvalidArgument);  // Q rows only
  const CudaBlockPlain level2 = gpu.upload_blocks(engine.encode_extended(half, 2));
  EXPECT_THROW(gpu.accumulate_rotations(a, {1}, {&level2}, sum), InvalidArgument);
  EXPECT_THROW(gpu.accumulate_extended_rotation(a, 1, rotated), InvalidArgument);    // Q rows only
  EXPECT_THROW(gpu.accumulate_extended_rotation(sum, 5, rotated), InvalidArgument);  // no key
  EXPECT_THROW(gpu.accumulate_extended_rotation(sum, 1, foreign), InvalidArgument);  // not extended
  EXPECT_THROW(gpu.accumulate_extended_rotation(sum, 1, sum), InvalidArgument);      // aliasing
  const std::vector<const CudaCiphertext*> summed{&sum}, with_sum{&sum, &rotated}, of_q_rows{&a};
  EXPECT_THROW(gpu.accumulate_extended_rotations(summed, {1, 2}, rotated), InvalidArgument);  // 1 sum, 2 steps
  EXPECT_THROW(gpu.accumulate_extended_rotations(summed, {5}, rotated), InvalidArgument);     // no key
  EXPECT_THROW(gpu.accumulate_extended_rotations(of_q_rows, {1}, rotated), InvalidArgument);  // Q rows only
  EXPECT_THROW(gpu.accumulate_extended_rotations(with_sum, {1, 0}, rotated), InvalidArgument);  // aliasing
  EXPECT_EQ(rotated.parts, 0u);  // nothing half-done
  EXPECT_THROW(gpu.mod_down_rescale(a, scratch), InvalidArgument);    // Q rows only
  EXPECT_THROW(gpu.mod_down_rescale(sum, foreign), InvalidArgument);
  EXPECT_THROW(gpu.mod_down_rescale(sum, sum), InvalidArgument);      // an extended output
  CudaCiphertext last = gpu.make_ciphertext(), last_sum = gpu.make_extended();
  gpu.drop_level(a, engine.preset().levels, last);
  gpu.accumulate_rotations(last, {0}, {nullptr}, last_sum);
  EXPECT_THROW(gpu.mod_down_rescale(last_sum, scratch), InvalidArgument);  // nothing below the last level
  // A product's scale (2^80) with no room below the last level's modulus,
  // as the CPU evaluator refuses it (evaluator_errors_test).
  try {
    gpu.multiply(last, last, scratch);
    ADD_FAILURE() << "multiply at the last level was not refused";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiply: the product's scale 2^80"), std::string::npos) << e.what();
  }
  CudaCiphertext plain = gpu.make_ciphertext();
  gpu.upload(engine.encode(half, engine.preset().levels), plain);
  EXPECT_THROW(gpu.multiply_plain(last, plain, scratch), InvalidArgument);
  EXPECT_EQ(scratch.parts, 0u);
  // Buffers too small or of the wrong kind are refused before a word moves:
  // a product (3 parts) into a 2-part buffer, an extended sum as a rotation's
  // input, the plaintext as multiply_plain's output (its words are read
  // after part 0 is written), a copy from another evaluator's shape.
  CudaCiphertext two_parts(engine.preset().q_primes.size(), engine.ntt_plan().n(), 2);
  CudaCiphertext level0_plain = gpu.make_ciphertext();
  EXPECT_THROW(gpu.multiply(a, a, two_parts), InvalidArgument);
  EXPECT_EQ(two_parts.parts, 0u);
  CudaCiphertext rotated_sum = gpu.make_ciphertext();
  EXPECT_THROW(gpu.rotate(sum, 1, rotated_sum), InvalidArgument);
  gpu.upload(engine.encode(half), level0_plain);
  EXPECT_THROW(gpu.multiply_plain(a, level0_plain, level0_plain), InvalidArgument);
  foreign.parts = 2;  // 3 rows of N words: not this evaluator's shape
  EXPECT_THROW(gpu.copy(foreign, rotated_sum), InvalidArgument);
  EXPECT_EQ(rotated_sum.parts, 0u);
}

}  // namespace
}  // namespace fhe
