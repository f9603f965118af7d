// Training steps (Direction::train): the forward under autograd and its backward as one call, with
// the step's peak and the bytes the forward keeps for backward apart. Byte counts are exact on the
// CPU (LibTorch's allocator reports what is asked for).
#include <gtest/gtest.h>

#include <string>

#include "opbench/catalog/binder.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/plan/planner.hpp"
#include "quick_exec.hpp"

namespace opbench::exec {

using measure::quick_exec_options;

namespace {

results::Case train_case(const std::string& op, const Json& args) {
  results::Case c = plan::make_case(op, catalog::bind_case(op, args, "test"), "float32", "cpu", 1,
                                    results::Direction::train, 7);
  c.origin = "test";
  return c;
}

TEST(Training, ExpKeepsItsOutputForBackwardAndPeaksWithItsGradient) {
  const auto r = run_case(train_case("exp", {{"self", "512x512"}}), quick_exec_options());
  ASSERT_EQ(r.status, results::Status::ok) << r.message;
  EXPECT_EQ(r.timing.call_path, results::CallPath::train);
  EXPECT_FALSE(r.samples.empty());
  ASSERT_TRUE(r.memory.has_value());
  // exp saves its result for backward: the output is all the forward keeps.
  ASSERT_TRUE(r.memory->kept_for_backward_bytes.has_value());
  EXPECT_EQ(*r.memory->kept_for_backward_bytes, 512 * 512 * 4);
  // The step: the output, then the input's gradient beside it (grad * result).
  EXPECT_GE(r.memory->peak_bytes, 2 * 512 * 512 * 4);
  EXPECT_GE(r.memory->total_bytes, r.memory->peak_bytes);
}

TEST(Training, MmKeepsOnlyItsOutputAndGivesBothGradients) {
  // mm saves its inputs (already held, no new bytes): the forward keeps its output alone.
  const auto r =
      run_case(train_case("mm", {{"self", "64x32"}, {"mat2", "32x16"}}), quick_exec_options());
  ASSERT_EQ(r.status, results::Status::ok) << r.message;
  ASSERT_TRUE(r.memory && r.memory->kept_for_backward_bytes);
  EXPECT_EQ(*r.memory->kept_for_backward_bytes, 64 * 16 * 4);
  // Forward's output, then a gradient per input (64x32 and 32x16), none accumulated into .grad.
  EXPECT_GE(r.memory->total_bytes, (64 * 16 + 64 * 32 + 32 * 16) * 4);
}

TEST(Training, AForwardCaseKeepsNothingForBackward) {
  results::Case c = train_case("exp", {{"self", "64"}});
  c.direction = results::Direction::forward;
  const auto r = run_case(c, quick_exec_options());
  ASSERT_EQ(r.status, results::Status::ok) << r.message;
  ASSERT_TRUE(r.memory.has_value());
  EXPECT_FALSE(r.memory->kept_for_backward_bytes.has_value());
}

TEST(Training, AnInPlaceOperatorHasNothingToDifferentiateAndIsSkipped) {
  // relu_ writes its only input: a leaf that requires grad cannot be written in place, so
  // training's leaf stops requiring grad and nothing is left to differentiate.
  const auto r = run_case(train_case("relu_", {{"self", "64"}}), quick_exec_options());
  EXPECT_EQ(r.status, results::Status::skipped) << r.message;
  EXPECT_NE(r.message.find("no input to differentiate"), std::string::npos) << r.message;
}

TEST(Training, AnInPlaceOperatorStillDifferentiatesWhatItDoesNotWrite) {
  // add_(self, other): self is written (not differentiated), other is.
  const auto r =
      run_case(train_case("add_", {{"self", "32x32"}, {"other", "32x32"}}), quick_exec_options());
  ASSERT_EQ(r.status, results::Status::ok) << r.message;
  EXPECT_EQ(r.timing.restored, std::vector<std::string>{"self"});
}

TEST(Training, InPlaceStepsDoNotChainThroughEarlierSteps) {
  // mul_(self, other): self is written, other differentiated, and mul saves both; were self not
  // cut off from the last step's graph, the second step would backward through a freed one.
  const auto r =
      run_case(train_case("mul_", {{"self", "32x32"}, {"other", "32x32"}}), quick_exec_options());
  ASSERT_EQ(r.status, results::Status::ok) << r.message;
  EXPECT_GT(r.samples.size(), 1u);
}

TEST(Training, AnOperatorWithoutADerivativeIsSkippedSayingSo) {
  const auto r =
      run_case(train_case("floor_divide", {{"self", "16"}, {"other", "16"}}), quick_exec_options());
  EXPECT_EQ(r.status, results::Status::skipped) << r.message;
  EXPECT_EQ(r.message.rfind("no derivative: ", 0), 0u) << r.message;
  EXPECT_EQ(r.message.find('\n'), std::string::npos) << r.message;
}

TEST(Training, IntegerInputsAreSkipped) {
  const auto r =
      run_case(train_case("bitwise_not", {{"self", {{"shape", {4}}, {"dtype", "int64"}}}}),
               quick_exec_options());
  EXPECT_EQ(r.status, results::Status::skipped);
}

} // namespace
} // namespace opbench::exec
