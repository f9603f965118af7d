#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "input_memo.hpp"
#include "makers.hpp"
#include "op_case.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/error.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/exec/typed_call.hpp"
#include "opbench/machine/canary.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/measure/memory_probe.hpp"
#include "opbench/plan/planner.hpp"
#include "quick_exec.hpp"

namespace opbench::exec {

using machine::last_level_cache_bytes;
using machine::memory_bound_bytes;
using machine::memory_canary_bytes;
using measure::drive;
using measure::ExecOptions;
using measure::probe_memory;
using measure::quick_exec_options;
using measure::record_aten_calls;
using measure::Recording;
using measure::Restore;
using measure::work_of;
using measure::Workload;
using testing::make_op_case;

namespace {

TEST(MemoryProbe, AddOf1024x1024FloatPeaksAtExactlyItsOutput) {
  const auto result = run_case(make_op_case("add", {{"self", "1024x1024"}, {"other", "1024x1024"}}),
                               quick_exec_options());
  ASSERT_EQ(result.status, results::Status::ok) << result.message;
  ASSERT_TRUE(result.memory.has_value());
  EXPECT_EQ(result.memory->peak_bytes, 4194304);
  EXPECT_EQ(result.memory->total_bytes, 4194304);
  EXPECT_EQ(result.memory->allocations, 1);
}

TEST(Executor, EachRepetitionHasItsOwnPlacementAndACanary) {
  const results::Case c = make_op_case("mul", {{"self", "64x64"}, {"other", "64x64"}});
  ExecOptions first = quick_exec_options(), third = quick_exec_options();
  third.repetition = 2;
  third.memory = false;
  third.describe = false;
  const auto a = run_case(c, first);
  const auto b = run_case(c, third);
  ASSERT_EQ(a.status, results::Status::ok) << a.message;
  ASSERT_EQ(b.status, results::Status::ok) << b.message;
  EXPECT_EQ(a.timing.placement_padding, placement_padding(c.seed, 0));
  EXPECT_EQ(b.timing.placement_padding, placement_padding(c.seed, 2));
  EXPECT_EQ(placement_padding(c.seed, 0), 30144); // splitmix64 of (7, 1) mod 1024, x 64 bytes
  EXPECT_EQ(placement_padding(c.seed, 2), 32896);
  EXPECT_EQ(placement_padding(c.seed, 0) % 64, 0);
  EXPECT_LT(placement_padding(c.seed, 0), 64 * 1024);
  // The speed canary ran around the timing (about 0.1 ms of integer work on this thread).
  EXPECT_GT(a.timing.canary, 1e-6);
  EXPECT_LT(a.timing.canary, 0.1);
  // One repetition: its median is the estimate; only the first counts ATen calls and memory.
  EXPECT_EQ(a.timing.repetition_medians.size(), 1u);
  EXPECT_DOUBLE_EQ(a.estimate.median, a.summary.median);
  EXPECT_EQ(a.work.aten_calls, 1);
  EXPECT_FALSE(b.work.aten_calls.has_value());
  EXPECT_FALSE(b.memory.has_value());
}

TEST(Executor, AMemoryBoundCaseHasTheMemoryCanaryAroundEachRepetition) {
  // Inputs of memory_bound_bytes (a quarter of the last-level cache), rounded up to a float.
  const std::int64_t floats = (memory_bound_bytes() + 3) / 4;
  const auto big =
      run_case(make_op_case("neg", {{"self", std::to_string(floats)}}), quick_exec_options());
  ASSERT_EQ(big.status, results::Status::ok) << big.message;
  ASSERT_EQ(big.timing.repetition_bandwidth.size(), 1u);
  for (double reading : big.timing.repetition_bandwidth[0]) {
    EXPECT_GT(reading, 1e8) << "100 MB/s: slower than any machine's memory";
    EXPECT_LT(reading, 1e13) << "10 TB/s: faster than any machine's memory";
  }
  EXPECT_EQ(memory_canary_bytes(), 2 * last_level_cache_bytes());
  // A float fewer is under it: no memory canary.
  const auto small =
      run_case(make_op_case("neg", {{"self", std::to_string(floats - 1)}}), quick_exec_options());
  ASSERT_EQ(small.status, results::Status::ok) << small.message;
  EXPECT_TRUE(small.timing.repetition_bandwidth.empty());
}

TEST(MemoryProbe, CountsAllocationsOfACall) {
  const at::Tensor a = at::ones({256});
  const auto stats = probe_memory([&] {
    at::Tensor b = at::relu(a); // 1 KiB
    at::Tensor c = at::neg(b);  // 1 KiB more while b lives
  });
  EXPECT_EQ(stats.allocations, 2);
  EXPECT_EQ(stats.total_bytes, 2048);
  EXPECT_EQ(stats.peak_bytes, 2048);
}

TEST(Executor, OkCaseHasSamplesAndStatistics) {
  const auto result =
      run_case(make_op_case("mm", {{"self", "16x16"}, {"mat2", "16x16"}}), quick_exec_options());
  ASSERT_EQ(result.status, results::Status::ok) << result.message;
  EXPECT_GE(result.samples.size(), 3u);
  EXPECT_EQ(result.summary.count, result.samples.size());
  EXPECT_GT(result.summary.median, 0.0);
  EXPECT_LE(result.summary.min, result.summary.median);
  EXPECT_GE(result.timing.block_size, 1);
  EXPECT_EQ(result.timing.timer, results::Timer::steady_clock);
}

TEST(Executor, RuntimeFailureBecomesErrorStatus) {
  const auto result =
      run_case(make_op_case("add", {{"self", "3x4"}, {"other", "[5]"}}), quick_exec_options());
  EXPECT_EQ(result.status, results::Status::error);
  EXPECT_EQ(result.c.case_id, "add/self=3x4,other=5/float32/cpu/t1/forward");
  // The whole text stays in the result (where LibTorch says it was raised, too); its first line
  // is what the console and the Markdown report show.
  const std::string first = result.message.substr(0, result.message.find('\n'));
  EXPECT_NE(first.find("must match"), std::string::npos) << result.message;
  EXPECT_EQ(first.find("Exception raised from"), std::string::npos) << result.message;
  EXPECT_TRUE(result.samples.empty());
}

TEST(Executor, BackwardTimesGradientsWithoutAccumulating) {
  const auto result = run_case(make_op_case("mm", {{"self", "8x8"}, {"mat2", "8x8"}}, "backward"),
                               quick_exec_options());
  ASSERT_EQ(result.status, results::Status::ok) << result.message;
  EXPECT_FALSE(result.samples.empty());
  ASSERT_TRUE(result.memory.has_value());
  EXPECT_EQ(result.memory->total_bytes, 2 * 8 * 8 * 4); // one gradient per input
}

TEST(Executor, DtypeTheOperatorDoesNotSupportIsSkipped) {
  const auto result = run_case(make_op_case("bitwise_not", {{"self", "[4]"}}, "forward", "float32"),
                               quick_exec_options());
  EXPECT_EQ(result.status, results::Status::skipped);
  EXPECT_EQ(result.message.rfind("float32 is not supported here: ", 0), 0u) << result.message;
  EXPECT_NE(result.message.find("not implemented for 'Float'"), std::string::npos)
      << result.message;
}

TEST(Executor, ChannelsLastInputs) {
  auto c = make_op_case("relu", {{"self", "1x4x8x8"}});
  c.memory_format = "channels_last";
  const PreparedCall call = prepare_call(c, false);
  EXPECT_TRUE(call.args[0].toTensor().is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_EQ(run_case(c, quick_exec_options()).status, results::Status::ok);
}

TEST(Restore, AnInPlaceOperatorsInputIsPutBackAsItWasMade) {
  PreparedCall call = prepare_call(make_op_case("exp_", {{"self", "64"}}), false);
  const at::Tensor self = call.args[0].toTensor();
  const at::Tensor made = self.clone();
  Workload w = operator_workload(call);
  ASSERT_EQ(w.restore.arguments, std::vector<std::string>{"self"});
  // exp_ on its own output: every element infinite within a few calls (normal values: after
  // exp, exp, exp at most 15.2, 3.8e6, then inf).
  for (int i = 0; i < 8; ++i)
    w.call();
  EXPECT_TRUE(at::isinf(self).all().item<bool>());
  w.restore();
  EXPECT_TRUE(at::equal(self, made));
  // The very tensor the call writes, not a copy: the next call starts from the made values.
  w.call();
  EXPECT_TRUE(at::allclose(self, at::exp(made)));
}

TEST(Restore, NothingIsPutBackForOutOfPlaceAndOutOperatorsAndListsAreWhole) {
  PreparedCall plain = prepare_call(make_op_case("exp", {{"self", "64"}}), false);
  const Workload exp = operator_workload(plain);
  EXPECT_FALSE(exp.restore.run);
  EXPECT_TRUE(exp.restore.arguments.empty());
  // exp.out writes `out` without reading it: nothing to put back.
  PreparedCall out{c10::Dispatcher::singleton().findSchemaOrThrow("aten::exp", "out"),
                   {at::randn({64}), at::empty({64})},
                   {}};
  EXPECT_TRUE(operator_workload(out).restore.arguments.empty());
  // A written tensor list: every tensor of it.
  const std::vector<at::Tensor> tensors{at::ones({3}), at::ones({5})};
  PreparedCall list{c10::Dispatcher::singleton().findSchemaOrThrow("aten::_foreach_mul_", "Scalar"),
                    {c10::IValue(tensors), c10::IValue(at::Scalar(2.0))},
                    {}};
  Workload mul = operator_workload(list);
  ASSERT_EQ(mul.restore.arguments, std::vector<std::string>{"self"});
  mul.call();
  mul.call();
  EXPECT_DOUBLE_EQ(tensors[1].sum().item<double>(), 20.0);
  mul.restore();
  EXPECT_DOUBLE_EQ(tensors[0].sum().item<double>(), 3.0);
  EXPECT_DOUBLE_EQ(tensors[1].sum().item<double>(), 5.0);
}

TEST(Restore, TheDriverPutsInputsBackBeforeEveryTimedCallAndTheResultSaysWhich) {
  // A workload that counts the calls since its last restore: no timed call, hot or cold, runs on
  // what another call left; so each is timed alone (block size 1).
  for (const bool cold : {false, true}) {
    std::int64_t depth = 0, deepest = 0, restores = 0;
    Workload w;
    w.call = [&] { deepest = std::max(deepest, ++depth); };
    w.restore.run = [&] {
      depth = 0;
      ++restores;
    };
    w.restore.arguments = {"self"};
    w.recordable = false;
    ExecOptions options = quick_exec_options();
    options.memory = false;
    options.cold = cold;
    results::CaseResult result;
    drive(make_op_case("exp_", {{"self", "4"}}), options, w, result);
    ASSERT_FALSE(result.samples.empty());
    EXPECT_EQ(deepest, 1);
    EXPECT_EQ(result.timing.block_size, 1);
    // One before every call: warmup, kept and taken again (an interrupted batch).
    EXPECT_EQ(restores, result.timing.warmup_calls +
                            static_cast<std::int64_t>(result.samples.size()) +
                            result.timing.discarded_blocks);
    EXPECT_EQ(result.timing.restored, std::vector<std::string>{"self"});
  }
  // A real in-place case says so in its result; an out-of-place one does not.
  const auto in_place = run_case(make_op_case("exp_", {{"self", "64"}}), quick_exec_options());
  ASSERT_EQ(in_place.status, results::Status::ok) << in_place.message;
  EXPECT_EQ(in_place.timing.restored, std::vector<std::string>{"self"});
  EXPECT_EQ(in_place.timing.block_size, 1);
  EXPECT_EQ(in_place.timing.mode, "hot"); // nothing flushed: the restore leaves its copy in cache
  // Its calls run in blocks. (The block size comes from timing the first calls against a 0.1 ms
  // block: one descheduling of this process there, as on a loaded CI runner, makes it 1, so a
  // block of more than one call is asked of one of three measurements.)
  std::int64_t largest_block = 0;
  for (int attempt = 0; attempt < 3 && largest_block <= 1; ++attempt) {
    const auto out_of_place = run_case(make_op_case("exp", {{"self", "64"}}), quick_exec_options());
    EXPECT_TRUE(out_of_place.timing.restored.empty());
    largest_block = std::max(largest_block, out_of_place.timing.block_size);
  }
  EXPECT_GT(largest_block, 1);
}

TEST(Executor, BackwardWithoutFloatInputsIsSkipped) {
  auto c =
      make_op_case("bitwise_not", {{"self", {{"shape", {4}}, {"dtype", "int64"}}}}, "backward");
  const auto result = run_case(c, quick_exec_options());
  EXPECT_EQ(result.status, results::Status::skipped);
  EXPECT_FALSE(result.message.empty());
}

TEST(InputMemo, KeepsTheMostRecentlyUsedDrawsWithinItsBudget) {
  const auto draw = [](std::int64_t floats) {
    return InputMemo::Draw{at::zeros({floats}), at::Tensor()};
  };
  InputMemo memo(3 * 4096);
  memo.keep("a", draw(1024));
  memo.keep("b", draw(1024));
  memo.keep("c", draw(1024));
  ASSERT_TRUE(memo.find("a")); // now the most recently used
  memo.keep("d", draw(1024));  // drops b, the least recently used
  EXPECT_TRUE(memo.find("a"));
  EXPECT_FALSE(memo.find("b"));
  EXPECT_TRUE(memo.find("c"));
  EXPECT_TRUE(memo.find("d"));
  EXPECT_EQ(memo.bytes(), 3u * 4096);
  memo.keep("huge", draw(4 * 1024)); // over the whole budget: not kept, nothing dropped
  EXPECT_FALSE(memo.find("huge"));
  EXPECT_EQ(memo.size(), 3u);
  memo.keep("d", draw(512)); // the same key again replaces it
  EXPECT_EQ(memo.bytes(), 2u * 4096 + 2048);
  memo.clear();
  EXPECT_EQ(memo.size(), 0u);
  EXPECT_EQ(memo.bytes(), 0u);
}

// A repetition's inputs are fresh memory with the same values, whether the large draw was kept
// by an earlier repetition or drawn again; the small draw after it too (the generator is left
// where the large draw leaves it); and an in-place write to one repetition's inputs reaches no
// other.
TEST(Inputs, RepetitionsGetTheSameValuesInFreshMemoryWhetherOrNotTheDrawWasKept) {
  const auto c = make_op_case("add", {{"self", "1024x512"}, {"other", "512"}});
  InputMemo::shared().clear();
  const PreparedCall first = prepare_call(c, false);
  EXPECT_EQ(InputMemo::shared().size(), 1u); // the 2 MB draw; the 2 KB one is drawn again
  const PreparedCall second = prepare_call(c, false);
  const auto self = [](const PreparedCall& call) { return call.args[0].toTensor(); };
  const auto other = [](const PreparedCall& call) { return call.args[1].toTensor(); };
  EXPECT_TRUE(at::equal(self(first), self(second)));
  EXPECT_TRUE(at::equal(other(first), other(second)));
  EXPECT_NE(self(first).data_ptr(), self(second).data_ptr());
  self(second).add_(1.0);
  const PreparedCall third = prepare_call(c, false);
  EXPECT_TRUE(at::equal(self(first), self(third)));
  InputMemo::shared().clear();
  const PreparedCall drawn_again = prepare_call(c, false);
  EXPECT_TRUE(at::equal(self(first), self(drawn_again)));
  EXPECT_TRUE(at::equal(other(first), other(drawn_again)));
  // Another seed draws other values.
  auto reseeded = c;
  reseeded.seed = 8;
  EXPECT_FALSE(at::equal(self(first), self(prepare_call(reseeded, false))));
}

TEST(Inputs, SeededAndTyped) {
  const auto c = make_op_case("index_select",
                              {{"self", "10x4"},
                               {"dim", 0},
                               {"index", {{"shape", {32}}, {"dtype", "int64"}, {"high", 10}}}},
                              "forward", "float64");
  const PreparedCall first = prepare_call(c, false);
  const PreparedCall second = prepare_call(c, false);
  const at::Tensor self = first.args[0].toTensor();
  const at::Tensor index = first.args[2].toTensor();
  EXPECT_EQ(self.scalar_type(), at::kDouble);
  EXPECT_EQ(index.scalar_type(), at::kLong);
  EXPECT_GE(index.min().item<int64_t>(), 0);
  EXPECT_LT(index.max().item<int64_t>(), 10);
  EXPECT_TRUE(at::equal(self, second.args[0].toTensor())); // same seed, same data
  EXPECT_TRUE(first.grad_inputs.empty());
}

} // namespace
} // namespace opbench::exec

#include "opbench/measure/call_recorder.hpp"

namespace opbench::exec {
namespace {

// The one recorder gives every kind of case its ATen calls and work: a sum over the calls, FLOPs
// only when every call has a rule.
TEST(CallRecorder, WorkIsTheSumOverTheCalls) {
  const at::Tensor a = at::rand({8, 16}), b = at::rand({16, 4}), x = at::rand({8, 4});
  const Recording both = record_aten_calls([&] { (void)at::add(at::mm(a, b), x); });
  ASSERT_EQ(both.calls.size(), 2u);
  EXPECT_EQ(both.calls[0].op, "aten::mm");
  EXPECT_EQ(both.calls[1].op, "aten::add.Tensor");
  const cost::Cost work = work_of(both.calls);
  ASSERT_TRUE(work.flops.has_value());
  EXPECT_DOUBLE_EQ(*work.flops, 2.0 * 8 * 4 * 16 + 8 * 4);
  EXPECT_DOUBLE_EQ(work.bytes, 4.0 * (8 * 16 + 16 * 4 + 8 * 4) + 4.0 * (8 * 4 * 3));
  EXPECT_EQ(work.flops_rule, "sum over 2 ATen calls");
  // A call with no FLOP rule (nonzero): the bytes still add up, the FLOPs are absent.
  const Recording some = record_aten_calls([&] { (void)at::nonzero(at::mm(a, b)); });
  EXPECT_FALSE(work_of(some.calls).flops.has_value());
  EXPECT_GT(work_of(some.calls).bytes, 0);
}

// The schema says which calls are views: they move no bytes (docs/roofline.md).
TEST(CallRecorder, ViewsMoveNoBytesAndCopiesDo) {
  const at::Tensor a = at::rand({64, 32});
  for (const auto& [name, code] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"t", [&] { (void)a.t(); }},
           {"split", [&] { (void)a.split(16); }},
           {"unbind", [&] { (void)a.unbind(0); }},
           {"view_as", [&] { (void)a.view_as(a); }},
           {"expand", [&] {
              (void)a.expand({2, 64, 32});
            }}}) {
    const Recording r = record_aten_calls(code);
    ASSERT_FALSE(r.calls.empty()) << name;
    EXPECT_TRUE(r.calls[0].shapes.view) << name;
    EXPECT_DOUBLE_EQ(work_of(r.calls).bytes, 0) << name;
  }
  // clone reads and writes every element; relu_ writes its input in place (no view).
  const Recording clone = record_aten_calls([&] { (void)a.clone(); });
  EXPECT_FALSE(clone.calls[0].shapes.view);
  EXPECT_DOUBLE_EQ(work_of(clone.calls).bytes, 2.0 * 64 * 32 * 4);
  at::Tensor b = a.clone();
  const Recording in_place = record_aten_calls([&] { (void)b.relu_(); });
  EXPECT_FALSE(in_place.calls[0].shapes.view);
  EXPECT_DOUBLE_EQ(work_of(in_place.calls).bytes, 64.0 * 32 * 4);
}

} // namespace
} // namespace opbench::exec
