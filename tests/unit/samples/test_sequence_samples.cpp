// fairseq's BeamableMM (sequence_samples.cpp) against the plain batched product it replaces.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "registry.hpp"
#include "sequence_ops.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(SequenceSamples, BeamableMmIsTheBatchedProductWhenTheBeamSharesItsInput) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(47);
  const auto* sample = find("beamableMM");
  ASSERT_NE(sample, nullptr);
  for (const auto& c : sample->info.cases) {
    const auto inputs = sample->make_inputs(c.at("sizes"), g);
    const auto expected = inputs[0].bmm(inputs[1]);
    opbench::testing::expect_tensors_close(sample->body(inputs)[0], expected, 1e-5);
  }
  // One sentence (bsz == beam) takes the mm path; not a single time step: the plain bmm.
  const auto enc = at::randn({1, 6, 5}, g).repeat({4, 1, 1});
  const auto x = at::randn({4, 1, 6}, g);
  opbench::testing::expect_tensors_close(beamable_mm(x, enc, 4), x.bmm(enc), 1e-5);
  const auto steps = at::randn({4, 3, 6}, g);
  opbench::testing::expect_tensors_close(beamable_mm(steps, enc, 4), steps.bmm(enc), 1e-5);
}

TEST(SequenceSamples, CollateTokensAndGreedyDecoding) {
  EXPECT_TRUE(at::equal(collate_tokens({testing::longs({5, 6}), testing::longs({7})}, 1),
                        testing::longs({5, 6, 7, 1}).view({2, 2})));
  // Frames' best labels 0 0 blank 0 1 1 blank (blank = 2): collapse repeats, drop blanks -> 0 0 1.
  const auto best = testing::longs({0, 0, 2, 0, 1, 1, 2});
  const auto logp = at::one_hot(best, 3).to(at::kFloat).unsqueeze(0);
  EXPECT_TRUE(at::equal(greedy_decoder(logp, 2)[0], testing::longs({0, 0, 1})));
}

} // namespace
} // namespace opbench::samples
