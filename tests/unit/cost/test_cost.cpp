#include <gtest/gtest.h>

#include "opbench/cost/cost.hpp"
#include "opbench/cost/roofline.hpp"
#include "temp_dir.hpp"

namespace opbench::cost {
namespace {

TensorInfo t(const std::string& arg, std::vector<std::int64_t> shape,
             std::int64_t element_bytes = 4) {
  return TensorInfo{arg, std::move(shape), element_bytes};
}

CallShapes call(const std::string& op, std::vector<TensorInfo> inputs,
                std::vector<TensorInfo> outputs, Json arguments = Json::object()) {
  CallShapes c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.outputs = std::move(outputs);
  c.arguments = std::move(arguments);
  return c;
}

// Every figure below is worked out by hand from the rule in cost.hpp.
TEST(Cost, MatrixProducts) {
  const Cost mm =
      estimate(call("aten::mm", {t("self", {2, 3}), t("mat2", {3, 4})}, {t("", {2, 4})}));
  EXPECT_DOUBLE_EQ(*mm.flops, 48); // 2 * M(2) * N(4) * K(3)
  EXPECT_DOUBLE_EQ(mm.bytes, (6 + 12 + 8) * 4);
  EXPECT_EQ(mm.flops_rule, "2MNK");
  const Cost bmm =
      estimate(call("aten::bmm", {t("self", {5, 2, 3}), t("mat2", {5, 3, 4})}, {t("", {5, 2, 4})}));
  EXPECT_DOUBLE_EQ(*bmm.flops, 240); // 5 * 48
  const Cost addmm = estimate(
      call("aten::addmm", {t("self", {4}), t("mat1", {2, 3}), t("mat2", {3, 4})}, {t("", {2, 4})}));
  EXPECT_DOUBLE_EQ(*addmm.flops, 56); // 48 + M * N
  const Cost linear =
      estimate(call("aten::linear", {t("input", {8, 16}), t("weight", {32, 16}), t("bias", {32})},
                    {t("", {8, 32})}));
  EXPECT_DOUBLE_EQ(*linear.flops, 2.0 * 256 * 16 + 256);
  const Cost mv = estimate(call("aten::mv", {t("self", {3, 5}), t("vec", {5})}, {t("", {3})}));
  EXPECT_DOUBLE_EQ(*mv.flops, 30);
  const Cost dot = estimate(call("aten::dot", {t("self", {7}), t("tensor", {7})}, {t("", {})}));
  EXPECT_DOUBLE_EQ(*dot.flops, 14);
  const Cost matmul = estimate(
      call("aten::matmul", {t("self", {6, 2, 3}), t("other", {3, 4})}, {t("", {6, 2, 4})}));
  EXPECT_DOUBLE_EQ(*matmul.flops, 2.0 * 48 * 3);
}

TEST(Cost, Convolutions) {
  // 1x3x8x8 * 4x3x3x3 -> 1x4x6x6: 144 outputs, each 3 * 9 multiply-adds.
  const Cost conv =
      estimate(call("aten::conv2d", {t("input", {1, 3, 8, 8}), t("weight", {4, 3, 3, 3})},
                    {t("", {1, 4, 6, 6})}));
  EXPECT_DOUBLE_EQ(*conv.flops, 7776);
  const Cost bias = estimate(
      call("aten::conv2d", {t("input", {1, 3, 8, 8}), t("weight", {4, 3, 3, 3}), t("bias", {4})},
           {t("", {1, 4, 6, 6})}));
  EXPECT_DOUBLE_EQ(*bias.flops, 7776 + 144);
  // groups 2: weight 8x2x3x3 over 1x4x8x8 -> 1x8x6x6, each output sees C_in / groups = 2 channels.
  const Cost grouped =
      estimate(call("aten::conv2d", {t("input", {1, 4, 8, 8}), t("weight", {8, 2, 3, 3})},
                    {t("", {1, 8, 6, 6})}, {{"groups", 2}}));
  EXPECT_DOUBLE_EQ(*grouped.flops, 2.0 * 288 * 2 * 9);
  // Transposed: weight (C_in 4, C_out / groups 2, 3x3): each of 100 inputs scatters 2 * 9.
  const Cost transposed =
      estimate(call("aten::conv_transpose2d.input",
                    {t("input", {1, 4, 5, 5}), t("weight", {4, 2, 3, 3})}, {t("", {1, 2, 7, 7})}));
  EXPECT_DOUBLE_EQ(*transposed.flops, 3600);
  const Cost conv1d = estimate(
      call("aten::conv1d", {t("input", {2, 3, 10}), t("weight", {5, 3, 3})}, {t("", {2, 5, 8})}));
  EXPECT_DOUBLE_EQ(*conv1d.flops, 2.0 * 80 * 3 * 3);
}

TEST(Cost, AttentionElementwiseReductionsNormalisations) {
  const Cost sdpa =
      estimate(call("aten::scaled_dot_product_attention",
                    {t("query", {2, 8, 16}), t("key", {2, 32, 16}), t("value", {2, 32, 16})},
                    {t("", {2, 8, 16})}));
  EXPECT_DOUBLE_EQ(*sdpa.flops, 2.0 * 2 * 8 * 32 * (16 + 16));
  EXPECT_DOUBLE_EQ(
      *estimate(call("aten::add.Tensor", {t("self", {2, 3}), t("other", {3})}, {t("", {2, 3})}))
           .flops,
      6);
  EXPECT_DOUBLE_EQ(*estimate(call("aten::relu_", {t("self", {10})}, {})).flops,
                   0); // in place: no new output
  EXPECT_DOUBLE_EQ(
      *estimate(call("aten::sum.dim_IntList", {t("self", {4, 5})}, {t("", {4})})).flops, 20);
  EXPECT_DOUBLE_EQ(*estimate(call("aten::softmax.int", {t("self", {4, 5})}, {t("", {4, 5})})).flops,
                   80);
  EXPECT_DOUBLE_EQ(
      *estimate(call("aten::layer_norm", {t("input", {4, 5}), t("weight", {5})}, {t("", {4, 5})}))
           .flops,
      100);
  EXPECT_DOUBLE_EQ(
      *estimate(call("aten::batch_norm", {t("input", {2, 3, 4, 4})}, {t("", {2, 3, 4, 4})})).flops,
      192);
}

TEST(Cost, UnknownFlopsAreAbsentButBytesAreKnown) {
  const Cost topk = estimate(call("aten::topk", {t("self", {100})}, {t("", {5}), t("", {5}, 8)}));
  EXPECT_FALSE(topk.flops.has_value());
  EXPECT_TRUE(topk.flops_rule.empty());
  EXPECT_DOUBLE_EQ(topk.bytes, 400 + 20 + 40);
  EXPECT_DOUBLE_EQ(estimate(call("aten::add", {t("self", {4}, 2)}, {t("", {4}, 2)})).bytes,
                   16); // float16
}

TEST(Cost, ViewsAndUnfilledFactoriesMoveNoData) {
  // t of 3072x768 floats: a view, 0 bytes (it was charged 2 x 9.4 MB, "171,208% of peak").
  CallShapes view = call("aten::t", {t("self", {3072, 768})}, {});
  view.view = true;
  EXPECT_DOUBLE_EQ(estimate(view).bytes, 0);
  EXPECT_FALSE(estimate(view).flops.has_value());
  // empty allocates and fills nothing; zeros writes what it fills.
  EXPECT_DOUBLE_EQ(estimate(call("aten::empty.memory_format", {}, {t("", {1024})})).bytes, 0);
  EXPECT_DOUBLE_EQ(estimate(call("aten::zeros", {}, {t("", {1024})})).bytes, 4096);
  // ones_like reads only its argument's shape: it writes its output.
  EXPECT_DOUBLE_EQ(estimate(call("aten::ones_like", {t("self", {1024})}, {t("", {1024})})).bytes,
                   4096);
  // An in-place call (its output aliases self, written): self read and written, counted once.
  EXPECT_DOUBLE_EQ(estimate(call("aten::relu_", {t("self", {256})}, {})).bytes, 1024);
}

TEST(Cost, IndexedReadsCountWhatTheIndexNames) {
  // index_select of 1024 rows of a 30522x768 table: the rows read and written, the index read
  // (the table's 93.8 MB were charged before: 2,590% of the roof).
  EXPECT_DOUBLE_EQ(
      estimate(call("aten::index_select", {t("self", {30522, 768}), t("index", {1024}, 8)},
                    {t("", {1024, 768})}))
          .bytes,
      2.0 * 1024 * 768 * 4 + 1024 * 8);
  EXPECT_DOUBLE_EQ(
      estimate(call("aten::embedding", {t("weight", {30522, 768}), t("indices", {8, 128}, 8)},
                    {t("", {8, 128, 768})}))
          .bytes,
      2.0 * 8 * 128 * 768 * 4 + 8 * 128 * 8);
  EXPECT_DOUBLE_EQ(estimate(call("aten::gather", {t("self", {8, 30522}), t("index", {8, 128}, 8)},
                                 {t("", {8, 128})}))
                       .bytes,
                   2.0 * 8 * 128 * 4 + 8 * 128 * 8);
  // embedding_bag: 40960 rows of 64 floats read, 2048 bags written, indices and offsets read.
  EXPECT_DOUBLE_EQ(
      estimate(call("aten::embedding_bag",
                    {t("weight", {1000000, 64}), t("indices", {40960}, 8), t("offsets", {2048}, 8)},
                    {t("", {2048, 64})}))
          .bytes,
      40960.0 * 64 * 4 + 2048 * 64 * 4 + 40960 * 8 + 2048 * 8);
  // diag of a matrix reads its diagonal; of a vector it writes a whole matrix (the usual rule).
  EXPECT_DOUBLE_EQ(estimate(call("aten::diag", {t("self", {768, 768})}, {t("", {768})})).bytes,
                   2.0 * 768 * 4);
  EXPECT_DOUBLE_EQ(estimate(call("aten::diag", {t("self", {8})}, {t("", {8, 8})})).bytes,
                   8.0 * 4 + 64 * 4);
}

TEST(Roofline, EachCaseAgainstTheLevelItsBytesFit) {
  Peaks peaks;
  peaks.copy_bandwidth = 10e9;
  peaks.gemm_flops = 100e9;
  peaks.caches = {{"L1d", 48 << 10, 200e9}, {"L2", 2 << 20, 60e9}, {"L3", 32 << 20, 5e9}};
  EXPECT_EQ(memory_ceiling(peaks, 1000).first, "L1d");
  EXPECT_EQ(memory_ceiling(peaks, 48 << 10).first, "L1d");
  EXPECT_EQ(memory_ceiling(peaks, (48 << 10) + 1).first, "L2");
  EXPECT_DOUBLE_EQ(memory_ceiling(peaks, 1 << 20).second, 60e9);
  // A level measured slower than DRAM (a small copy_ pays its dispatch) is held to DRAM's roof.
  EXPECT_EQ(memory_ceiling(peaks, 4 << 20).first, "L3");
  EXPECT_DOUBLE_EQ(memory_ceiling(peaks, 4 << 20).second, 10e9);
  EXPECT_EQ(memory_ceiling(peaks, 64 << 20).first, "DRAM");

  // 1 MiB in 20 us: 52 GB/s, 524% of DRAM's roof but 87% of L2's, where it lives.
  cost::WorkInfo in_l2;
  in_l2.flops = 1 << 18;
  in_l2.bytes = 1 << 20;
  apply_roofline(in_l2, 20e-6, &peaks);
  EXPECT_EQ(in_l2.bound, "memory");
  EXPECT_EQ(in_l2.ceiling, "L2");
  EXPECT_NEAR(*in_l2.percent_of_peak, 100.0 * (1 << 20) / 20e-6 / 60e9, 1e-9);
  EXPECT_TRUE(in_l2.over_peak.empty());

  // Over its level's roof: said, with the reason.
  cost::WorkInfo over;
  over.bytes = 1 << 20;
  apply_roofline(over, 1e-6, &peaks);
  EXPECT_EQ(over.bound, "memory (bytes only)");
  EXPECT_GT(*over.percent_of_peak, 100.0);
  EXPECT_NE(over.over_peak.find("L2"), std::string::npos) << over.over_peak;

  // A view: no roof, no rate.
  cost::WorkInfo view;
  view.bytes = 0;
  apply_roofline(view, 1e-7, &peaks);
  EXPECT_EQ(view.bound, "no data moved");
  EXPECT_FALSE(view.percent_of_peak.has_value());
  EXPECT_FALSE(view.bytes_per_second.has_value());
}

TEST(Roofline, MemoryAndComputeBound) {
  Peaks peaks;
  peaks.copy_bandwidth = 10e9;
  peaks.triad_bandwidth = 12e9;
  peaks.gemm_flops = 100e9;
  EXPECT_DOUBLE_EQ(peaks.memory_bandwidth(), 12e9);
  EXPECT_NEAR(peaks.ridge(), 100.0 / 12.0, 1e-12);

  cost::WorkInfo streaming;
  streaming.flops = 1e6;
  streaming.bytes = 1e6;
  apply_roofline(streaming, 1e-3, &peaks);
  EXPECT_DOUBLE_EQ(*streaming.flops_per_second, 1e9);
  EXPECT_DOUBLE_EQ(*streaming.intensity, 1.0);
  EXPECT_EQ(streaming.bound, "memory");
  EXPECT_NEAR(*streaming.percent_of_peak, 100.0 / 12.0, 1e-9);

  cost::WorkInfo gemm;
  gemm.flops = 1e9;
  gemm.bytes = 1e6;
  apply_roofline(gemm, 0.1, &peaks);
  EXPECT_EQ(gemm.bound, "compute");
  EXPECT_NEAR(*gemm.percent_of_peak, 10.0, 1e-9);

  // Bytes but no FLOP count: held against the memory roof, and labelled so in every output.
  cost::WorkInfo bytes_only;
  bytes_only.bytes = 1e6;
  apply_roofline(bytes_only, 1e-3, &peaks);
  EXPECT_EQ(bytes_only.bound, "memory (bytes only)");
  EXPECT_NEAR(*bytes_only.percent_of_peak, 100.0 / 12.0, 1e-9);
  EXPECT_FALSE(bytes_only.intensity.has_value());

  cost::WorkInfo no_peaks;
  no_peaks.flops = 1e6;
  no_peaks.bytes = 2e6;
  apply_roofline(no_peaks, 1e-3, nullptr);
  EXPECT_DOUBLE_EQ(*no_peaks.bytes_per_second, 2e9);
  EXPECT_FALSE(no_peaks.percent_of_peak.has_value());
  EXPECT_TRUE(no_peaks.bound.empty());
}

TEST(PeakStore, SaveLoadFindReplace) {
  testing::TempDir dir;
  const std::string path = dir.file("cache/peaks.json");
  PeakStore store = PeakStore::load(path); // absent file: empty
  EXPECT_TRUE(store.entries().empty());
  Peaks p;
  p.device = "cpu";
  p.dtype = "float32";
  p.threads = 2;
  p.copy_bandwidth = 1e10;
  p.triad_bandwidth = 2e10;
  p.gemm_flops = 3e11;
  p.caches = {{"L1d", 49152, 1e11}, {"L2", 2 << 20, 5e10}};
  store.put(p);
  p.gemm_flops = 4e11;
  store.put(p); // same key: replaced
  p.threads = 1;
  store.put(p);
  store.save(path);
  const PeakStore back = PeakStore::load(path);
  ASSERT_EQ(back.entries().size(), 2u);
  ASSERT_NE(back.find("cpu", "float32", 2), nullptr);
  EXPECT_DOUBLE_EQ(back.find("cpu", "float32", 2)->gemm_flops, 4e11);
  ASSERT_EQ(back.find("cpu", "float32", 2)->caches.size(), 2u);
  EXPECT_EQ(back.find("cpu", "float32", 2)->caches[1].level, "L2");
  EXPECT_DOUBLE_EQ(back.find("cpu", "float32", 2)->caches[1].bandwidth, 5e10);
  EXPECT_EQ(back.find("cpu", "float16", 2), nullptr);
  EXPECT_THROW(PeakStore::load(dir.write("bad.json", "{\"peaks\": [{}]}")), std::exception);
}

TEST(PeakStore, PeaksOfAnotherCpuModelOrGpuAreLeftOutAndSaid) {
  PeakStore store;
  Peaks cpu;
  cpu.device = "cpu";
  cpu.dtype = "float32";
  cpu.gemm_flops = 1e11;
  cpu.copy_bandwidth = 1e10;
  cpu.context = {{"cpu_model", "Xeon A"}};
  store.put(cpu);
  Peaks gpu = cpu;
  gpu.device = "cuda:0";
  gpu.context = {{"cuda_devices", {{{"device", "cuda:0"}, {"name", "NVIDIA H100"}}}}};
  store.put(gpu);
  Peaks old = cpu;
  old.dtype = "float64";
  old.context = Json::object(); // from before peaks recorded their hardware
  store.put(old);

  std::vector<std::string> refused;
  const Json same = {{"cpu_model", "Xeon A"},
                     {"cuda_devices", {{{"device", "cuda:0"}, {"name", "NVIDIA H100"}}}}};
  EXPECT_EQ(peaks_for(store, same, refused).entries().size(), 2u);
  EXPECT_EQ(refused, (std::vector<std::string>{"cpu/float64/t1: records no hardware: calibrate "
                                               "again"}));
  refused.clear();
  const Json other = {{"cpu_model", "EPYC B"}}; // no CUDA device in this run: its entry stays
  const PeakStore kept = peaks_for(store, other, refused);
  ASSERT_EQ(kept.entries().size(), 1u);
  EXPECT_EQ(kept.entries()[0].device, "cuda:0");
  EXPECT_EQ(kept.find("cpu", "float32", 1), nullptr);
  EXPECT_EQ(refused.front(), "cpu/float32/t1: calibrated on Xeon A, this is EPYC B");
  EXPECT_EQ(hardware_of(same, "cuda:0"), "NVIDIA H100");
  EXPECT_EQ(hardware_of(same, "cuda:1"), "");
}

} // namespace
} // namespace opbench::cost
