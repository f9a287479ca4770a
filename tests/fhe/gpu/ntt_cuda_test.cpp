// CUDA NTT backends on a GPU: every compatible backend bit-exact against
// the radix2_indexed CPU oracle on every preset (level 0 and deeper levels;
// forward, inverse, roundtrip), forward/inverse captured into a CUDA graph
// and replayed (proof that they only enqueue work), `describe`, and error
// paths. Without a GPU the GPU tests skip with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/cpu/cpu_plan.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/params/preset.h"
#if FHELIUM_HAS_CUDA
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cuda/cuda_plans.h"
#include "tests/support/gpu_skip.h"
#endif

namespace {

using fhe::ntt::Direction;
using fhe::ntt::RowRange;
using Words = std::vector<std::uint64_t>;

const fhe::DeviceSpec kGpu{fhe::DeviceKind::cuda, 0};

Words slice(const Words& all, std::size_t n, RowRange rows) {
  return Words(all.begin() + rows.first * n, all.begin() + (rows.first + rows.count) * n);
}

std::size_t count_mismatches(const Words& a, const Words& b) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) count += a[i] != b[i];
  return count + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

class NttCudaPreset : public ::testing::TestWithParam<std::string> {};

// The oracle transforms all QP rows once; each level's rows are a slice,
// and so are two single rows (a scale prime and the last special prime),
// whose launches take the split kernels (LaunchShape::split).
TEST_P(NttCudaPreset, EveryBackendBitExactAtSeveralLevels) {
  FHE_SKIP_WITHOUT_GPU();
  const fhe::Preset& preset = fhe::preset_by_name(GetParam());
  const Words moduli = preset.qp_primes();
  auto oracle = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {}, preset.log_n, moduli, preset.word);
  const std::size_t n = oracle->n();
  const Words input = fhe::ntt::random_rows(*oracle, oracle->all_rows(), 2024 + preset.log_n);
  Words expected = input;
  oracle->forward(expected.data(), oracle->all_rows());

  const std::set<int> levels = {0, 1, preset.levels / 2, preset.levels};
  std::vector<RowRange> row_ranges = {RowRange{0, 1}, RowRange{moduli.size() - 1, 1}};
  for (int level : levels) row_ranges.push_back(fhe::ntt::level_rows(preset, level));
  int checked = 0;
  for (const auto& backend : fhe::ntt::all_backends()) {
    if (!fhe::ntt::compatibility(backend, preset.log_n).compatible) continue;
    auto plan = fhe::ntt::make_plan(backend.name, kGpu, preset.log_n, moduli, preset.word);
    for (const RowRange rows : row_ranges) {
      const Words level_input = slice(input, n, rows);
      const Words level_expected = slice(expected, n, rows);
      Words forward = level_input;
      fhe::ntt::transform_on_host_data(*plan, forward, rows, Direction::forward);
      EXPECT_EQ(count_mismatches(forward, level_expected), 0u)
          << backend.name << " forward, rows from " << rows.first << ", " << rows.count;
      Words inverse = level_expected;
      fhe::ntt::transform_on_host_data(*plan, inverse, rows, Direction::inverse);
      EXPECT_EQ(count_mismatches(inverse, level_input), 0u)
          << backend.name << " inverse, rows from " << rows.first << ", " << rows.count;
      fhe::ntt::transform_on_host_data(*plan, forward, rows, Direction::inverse);
      EXPECT_EQ(count_mismatches(forward, level_input), 0u)
          << backend.name << " roundtrip, rows from " << rows.first << ", " << rows.count;
      ++checked;
    }
  }
  EXPECT_GE(checked, 4 * static_cast<int>(row_ranges.size()));  // the four radix-2 backends at least
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& preset : fhe::all_presets()) names.push_back(preset.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllPresets, NttCudaPreset, ::testing::ValuesIn(preset_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

#if FHELIUM_HAS_CUDA
// `batch` blocks of a preset's rows at `level`, random words of the oracle's
// primes: the input of the batched tests, for the 64- and 32-bit test presets.
struct BatchInput {
  const fhe::Preset& preset;
  Words moduli;
  std::unique_ptr<fhe::ntt::NttPlan> oracle;
  RowRange rows;
  Words words;
};

BatchInput batch_input(const char* preset_name, int level, std::size_t batch, std::uint64_t seed) {
  const fhe::Preset& preset = fhe::preset_by_name(preset_name);
  BatchInput in{preset, preset.qp_primes(), nullptr, fhe::ntt::level_rows(preset, level), {}};
  in.oracle = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {}, preset.log_n, in.moduli, preset.word);
  for (std::size_t b = 0; b < batch; ++b) {
    const Words block = fhe::ntt::random_rows(*in.oracle, in.rows, seed + b);
    in.words.insert(in.words.end(), block.begin(), block.end());
  }
  return in;
}

constexpr const char* kBatchPresets[] = {"test-slots2048-scale40-levels6-int64", "test-slots2048-scale25-levels4-int32"};

// A forward() or inverse() that synchronised or allocated would break the
// capture; replaying the graph must still give the oracle's words.
TEST(NttCuda, ForwardAndInverseCaptureIntoGraphs) {
  FHE_SKIP_WITHOUT_GPU();
  for (const char* preset_name : {"test-slots2048-scale40-levels6-int64",
                                  "test-slots2048-scale25-levels4-int32"}) {
    const fhe::Preset& preset = fhe::preset_by_name(preset_name);
    const Words moduli = preset.qp_primes();
    auto oracle = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {}, preset.log_n, moduli, preset.word);
    const RowRange rows = fhe::ntt::level_rows(preset, 1);
    const Words input = fhe::ntt::random_rows(*oracle, rows, 99);
    Words expected = input;
    oracle->forward(expected.data(), rows);
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, preset.log_n).compatible) continue;
      auto plan = fhe::ntt::make_plan(backend.name, kGpu, preset.log_n, moduli, preset.word);
      fhe::cuda::Stream stream;
      fhe::cuda::DeviceBuffer<std::uint64_t> buffer(input.size());
      for (bool forward : {true, false}) {
        cudaGraph_t graph = nullptr;
        ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
        if (forward) {
          plan->forward(buffer.data(), rows, {stream.get()});
        } else {
          plan->inverse(buffer.data(), rows, {stream.get()});
        }
        ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess) << backend.name;
        std::size_t nodes = 0;
        ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
        EXPECT_EQ(nodes, plan->schedule().passes.size()) << backend.name << ": one kernel per pass";
        cudaGraphExec_t exec = nullptr;
        ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << backend.name;
        for (int replay = 0; replay < 2; ++replay) {
          buffer.upload(forward ? input : expected);
          ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
          stream.synchronize();
          EXPECT_EQ(count_mismatches(buffer.download(), forward ? expected : input), 0u)
              << backend.name << (forward ? " forward" : " inverse") << " replay " << replay;
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
      }
    }
  }
}

// forward_batch / inverse_batch: four blocks of one level's rows (as the
// digits of a ModUp) in one launch per pass give the oracle's words block by
// block, for every backend and both word types.
TEST(NttCuda, BatchedBlocksMatchTheOracle) {
  FHE_SKIP_WITHOUT_GPU();
  constexpr std::size_t kBatch = 4;
  for (const char* preset_name : kBatchPresets) {
    const BatchInput in = batch_input(preset_name, 2, kBatch, 300);
    const Words& input = in.words;
    Words expected = input;
    in.oracle->forward_batch(expected.data(), in.rows, kBatch);
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, in.preset.log_n).compatible) continue;
      auto plan = fhe::ntt::make_plan(backend.name, kGpu, in.preset.log_n, in.moduli, in.preset.word);
      fhe::cuda::Stream stream;
      fhe::cuda::DeviceBuffer<std::uint64_t> buffer(input.size());
      buffer.upload(input);
      plan->forward_batch(buffer.data(), in.rows, kBatch, {stream.get()});
      stream.synchronize();
      EXPECT_EQ(count_mismatches(buffer.download(), expected), 0u) << backend.name << " forward";
      plan->inverse_batch(buffer.data(), in.rows, kBatch, {stream.get()});
      stream.synchronize();
      EXPECT_EQ(count_mismatches(buffer.download(), input), 0u) << backend.name << " inverse";
    }
  }
}

// inverse_batch_out_of_place: the words of the in-place inverse in the
// destination, the source untouched, read from data's layout and from a
// strip of rows of larger blocks (source_batch_words); radix2_indexed (no
// region first) declines and enqueues nothing.
TEST(NttCuda, InverseOutOfPlaceMatchesTheOracle) {
  FHE_SKIP_WITHOUT_GPU();
  constexpr std::size_t kBatch = 2;
  for (const char* preset_name : kBatchPresets) {
    const BatchInput in = batch_input(preset_name, 1, kBatch, 500);
    const Words& input = in.words;
    const Words filler(input.size(), 12345);
    Words expected = input;
    in.oracle->inverse_batch(expected.data(), in.rows, kBatch);
    // Each block's rows one row into a block of two more rows (filler).
    const std::size_t n = std::size_t{1} << in.preset.log_n, block_words = in.rows.count * n;
    const std::size_t stride = block_words + 2 * n;
    Words strip(kBatch * stride, 777);
    for (std::size_t b = 0; b < kBatch; ++b) {
      std::copy_n(input.begin() + b * block_words, block_words, strip.begin() + b * stride + n);
    }
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, in.preset.log_n).compatible) continue;
      auto plan = fhe::ntt::make_plan(backend.name, kGpu, in.preset.log_n, in.moduli, in.preset.word);
      for (const bool strided : {false, true}) {
        const Words& words = strided ? strip : input;
        fhe::cuda::Stream stream;
        fhe::cuda::DeviceBuffer<std::uint64_t> source(words.size()), destination(input.size());
        source.upload(words);
        destination.upload(filler);
        const bool ran = fhe::ntt::inverse_batch_out_of_place(*plan, source.data() + (strided ? n : 0),
                                                              destination.data(), in.rows, kBatch, {stream.get()},
                                                              strided ? stride : 0);
        stream.synchronize();
        EXPECT_EQ(count_mismatches(source.download(), words), 0u) << backend.name << ": the source changed";
        if (backend.name == fhe::ntt::kOracleBackend) {
          EXPECT_FALSE(ran);
          EXPECT_EQ(count_mismatches(destination.download(), filler), 0u);
          continue;
        }
        EXPECT_TRUE(ran) << backend.name;
        EXPECT_EQ(count_mismatches(destination.download(), expected), 0u)
            << backend.name << " out of place, strided " << strided;
      }
    }
  }
}
#endif

TEST(NttCuda, DescribeReportsKernelsAndResources) {
  FHE_SKIP_WITHOUT_GPU();
  const fhe::Preset& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const Words moduli = preset.qp_primes();
  const RowRange rows = fhe::ntt::level_rows(preset, 0);
  for (const auto& backend : fhe::ntt::all_backends()) {
    if (!fhe::ntt::compatibility(backend, preset.log_n).compatible) continue;
    auto plan = fhe::ntt::make_plan(backend.name, kGpu, preset.log_n, moduli, preset.word);
    const bool indexed = backend.family == fhe::ntt::BackendFamily::indexed;
    for (bool forward : {true, false}) {
      const auto launches = plan->describe(rows, forward);
      // 39 rows fill the GPU: two passes run in one launch (pass_pair.cuh)
      // and, below 4 stages a pass, the pass next to the region in the
      // region's (pass_region.cuh); 4-stage passes pair, the region alone.
      const bool four_stage = backend.stages_per_pass == 4;
      const std::size_t pairs = indexed ? 0 : 1, region_fusions = indexed || four_stage ? 0 : 1;
      ASSERT_EQ(launches.size(), plan->schedule().passes.size() - pairs - region_fusions) << backend.name;
      std::size_t paired = 0;
      for (const auto& launch : launches) {
        if (!launch.kernel.starts_with("ntt_pass_pair<")) continue;
        ++paired;
        EXPECT_EQ(launch.block[0], 256u) << launch.kernel;
        EXPECT_EQ(launch.grid[0] * launch.grid[1], rows.count * plan->n() / 4096) << launch.kernel;
        // The inverse pairs group4's and radix4's second and third passes (stages 2-5).
        EXPECT_EQ(launch.first_stage, !forward && launch.stage_count == 4 ? 2 : 0) << launch.kernel;
        // A pair from stage 0 at logN 16 runs the constant-log-N kernel (pass_pair.cuh).
        EXPECT_EQ(launch.kernel.find(",logN16,") != std::string::npos, launch.first_stage == 0 && preset.log_n == 16)
            << launch.kernel;
      }
      EXPECT_EQ(paired, pairs) << backend.name;
      if (!indexed) {
        const auto& region = forward ? launches.back() : launches.front();
        EXPECT_EQ(region.pass_kind, fhe::ntt::PassKind::shared_region);
        if (region_fusions == 1) {
          EXPECT_TRUE(region.kernel.starts_with("ntt_pass_region<")) << region.kernel;
          EXPECT_EQ(region.block[0], 16u << (region.stage_count - 8)) << region.kernel;
        } else {
          EXPECT_TRUE(region.kernel.starts_with("ntt_shared_region<")) << region.kernel;
          EXPECT_EQ(region.stage_count, 8) << region.kernel;
        }
      }
      int stages = 0;
      for (const auto& launch : launches) {
        EXPECT_TRUE(launch.kernel.starts_with("ntt_")) << launch.kernel;
        // 39 rows fill the GPU: the fused passes run their throughput instantiation.
        if (!launch.kernel.starts_with("ntt_indexed")) {
          EXPECT_TRUE(launch.kernel.ends_with(",throughput>")) << launch.kernel;
        }
        EXPECT_GT(launch.registers_per_thread, 0) << launch.kernel;
        EXPECT_GT(launch.max_blocks_per_sm, 0) << launch.kernel;
        EXPECT_GT(launch.block[0], 0u);
        // At least the data goes in and out once.
        EXPECT_GE(launch.modelled_dram_bytes, rows.count * plan->n() * 16);
        stages += launch.stage_count;
      }
      EXPECT_EQ(stages, preset.log_n) << backend.name;
      // The forward's last launch (the region and the pass before it, stages
      // f .. logN-1) reads 2^logN - 2^f twiddles a row: pairs of 16 bytes,
      // or 8-byte doubles on the rows of primes below 2^42 (all but
      // radix2_indexed's), and the data once in and out.
      if (forward && launches.back().pass_kind == fhe::ntt::PassKind::shared_region) {
        const std::size_t n = plan->n(), twiddles = n - (std::size_t{1} << launches.back().first_stage);
        std::size_t narrow = 0;
        for (std::size_t r = rows.first; r < rows.first + rows.count; ++r) narrow += moduli[r] < (1ULL << 42);
        EXPECT_EQ(launches.back().modelled_dram_bytes,
                  rows.count * (2 * n * 8 + twiddles * 16) - narrow * twiddles * 8)
            << backend.name;
      }
      // The inverse runs the passes in reverse order.
      if (!forward) EXPECT_EQ(launches.front().pass_kind, plan->schedule().passes.back().kind);
      // One row does not: the latency instantiation, split (few warps an
      // SM).
      for (const auto& launch : plan->describe({0, 1}, forward)) {
        if (!launch.kernel.starts_with("ntt_indexed")) {
          EXPECT_TRUE(launch.kernel.ends_with(",latency,split>")) << launch.kernel;
        }
      }
    }
  }
}

// The CPU plan describes the schedule's passes without any device.
TEST(NttCuda, CpuDescribeListsSchedulePasses) {
  const auto moduli = fhe::preset_by_name("test-slots2048-scale40-levels6-int64").qp_primes();
  auto plan = fhe::ntt::make_plan("radix2_compact_group8_smem8", {}, 12, moduli, fhe::WordType::int64);
  const auto launches = plan->describe(plan->all_rows(), true);
  ASSERT_EQ(launches.size(), 3u);  // G3 G1 S8
  EXPECT_EQ(launches[0].stage_count, 3);
  EXPECT_EQ(launches[1].stage_count, 1);
  EXPECT_EQ(launches[2].pass_kind, fhe::ntt::PassKind::shared_region);
  EXPECT_EQ(launches[2].registers_per_thread, 0);
  // Shared region: data in and out, plus twiddles of stages 4..11 (2^12 - 2^4 pairs of 16 bytes).
  EXPECT_EQ(launches[2].modelled_dram_bytes,
            moduli.size() * (2 * 4096 * 8 + (4096 - 16) * 16));
  // Rows whose twiddles are 8-byte doubles (the CUDA plans' double-precision
  // rows) read half those bytes.
  const auto fp64 = fhe::ntt::describe_schedule_passes(plan->schedule(), plan->all_rows(),
                                                       fhe::WordType::int64, true, 2);
  EXPECT_EQ(fp64[2].modelled_dram_bytes, launches[2].modelled_dram_bytes - 2 * (4096 - 16) * 8);
  EXPECT_EQ(fp64[0].modelled_dram_bytes, launches[0].modelled_dram_bytes - 2 * (1 + 2 + 4) * 8);
}

TEST(NttCuda, AbsentDeviceIsADeviceErrorNamingIt) {
  const auto moduli = fhe::preset_by_name("test-slots2048-scale40-levels6-int64").qp_primes();
  try {
    fhe::ntt::make_plan("radix2_compact_group8_smem8", {fhe::DeviceKind::cuda, 97}, 12, moduli,
                        fhe::WordType::int64);
    FAIL() << "expected DeviceError";
  } catch (const fhe::DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("cuda:97"), std::string::npos) << error.what();
  }
}

TEST(NttCuda, RowsPastThePlanAreRejected) {
  FHE_SKIP_WITHOUT_GPU();
  const auto moduli = fhe::preset_by_name("test-slots2048-scale40-levels6-int64").qp_primes();
  auto plan = fhe::ntt::make_plan("radix16_compact", kGpu, 12, moduli, fhe::WordType::int64);
  Words data((moduli.size() + 1) * plan->n(), 0);
  EXPECT_THROW(fhe::ntt::transform_on_host_data(*plan, data, {0, moduli.size() + 1}, Direction::forward),
               fhe::InvalidArgument);
  EXPECT_THROW(plan->describe({1, moduli.size()}, true), fhe::InvalidArgument);
}

TEST(NttCuda, ModulusTooWideForInt32IsRejected) {
  FHE_SKIP_WITHOUT_GPU();
  const auto moduli = fhe::preset_by_name("test-slots2048-scale40-levels6-int64").qp_primes();
  EXPECT_THROW(fhe::ntt::make_plan("radix2_indexed", kGpu, 12, moduli, fhe::WordType::int32),
               fhe::InvalidArgument);
}

}  // namespace
