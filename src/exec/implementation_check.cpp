// The checks of what an operator's kernel returns (implementation_check.hpp).
#include "implementation_check.hpp"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/output_check.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::exec {

using measure::Phase;

using measure::CheckFailed;
using measure::hold_phase;
using measure::outputs_differ;
using measure::Restore;
using measure::tolerance_for;
using stages::TensorFunction;

namespace {

// Clones of `tensors`: each computation gets inputs of its own (an in-place operator writes its).
std::vector<at::Tensor> clones(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  for (const auto& t : tensors)
    out.push_back(t.clone());
  return out;
}

// The baseline of variant group implementation `c`, as a case of its own.
results::Case baseline_of(const results::Case& c) {
  results::Case base = c;
  base.op = c.variant.baseline_op;
  base.given = c.variant.baseline_given;
  base.arguments = c.variant.baseline_arguments;
  base.case_id = c.variant.baseline_id;
  base.variant = results::Variant{};
  return base;
}

// The baseline's outputs on clones of `values`; `record.not_made` says why when the baseline
// itself fails (its failure is not the implementation's).
std::optional<std::vector<at::Tensor>> baseline_outputs(const results::Case& c,
                                                        const std::vector<at::Tensor>& values,
                                                        results::OutputCheck& record) {
  try {
    const TensorFunction theirs = operator_function(baseline_of(c));
    return theirs.body(clones(values));
  } catch (const std::exception& e) {
    record.not_made = "the baseline " + c.variant.baseline_id +
                      " failed: " + core::first_line(core::trim(e.what()));
    return std::nullopt;
  }
}

// Holds `actual` against `expected` into `record` (`when`: "before" or "after" its timed blocks).
void hold_to_baseline(const results::Case& c, const std::vector<at::Tensor>& expected,
                      const std::vector<at::Tensor>& actual, const std::string& when,
                      results::OutputCheck& record) {
  double worst = 0;
  const std::string mismatch = outputs_differ(expected, actual, worst, "the baseline");
  if (record.tolerance.empty()) {
    const auto first = std::find_if(expected.begin(), expected.end(),
                                    [](const at::Tensor& t) { return t.defined(); });
    record.tolerance =
        first == expected.end() ? "exact" : tolerance_for(first->scalar_type()).text("baseline");
  }
  if (!(record.worst >= worst))
    record.worst = worst;
  if (!mismatch.empty() && record.failed.empty()) {
    record.failed = when + " its timed blocks: its outputs differ from the baseline " +
                    c.variant.baseline_id + "'s (" + mismatch + ")";
  }
}

} // namespace

results::OutputCheck check_before(const results::Case& c) {
  results::OutputCheck record;
  record.against = c.variant.baseline_id;
  const TensorFunction mine = operator_function(c);
  const TensorFunction theirs = operator_function(baseline_of(c));
  const std::string against = "the baseline " + c.variant.baseline_id;
  if (mine.inputs.size() != theirs.inputs.size()) {
    throw Error("takes " + std::to_string(mine.inputs.size()) + " tensor(s), " + against +
                " takes " + std::to_string(theirs.inputs.size()) +
                ": implementations of one computation take the same tensors");
  }
  for (std::size_t k = 0; k < mine.inputs.size(); ++k) {
    if (mine.inputs[k].sizes() != theirs.inputs[k].sizes() ||
        mine.inputs[k].scalar_type() != theirs.inputs[k].scalar_type()) {
      throw Error("tensor input " + std::to_string(k) + " differs in shape or dtype from " +
                  against + "'s: implementations of one computation take the same tensors");
    }
  }
  const auto expected = baseline_outputs(c, mine.inputs, record);
  if (!expected)
    return record;
  const std::vector<at::Tensor> actual = mine.body(clones(mine.inputs));
  record.before = 1;
  hold_to_baseline(c, *expected, actual, "before", record);
  if (!record.failed.empty())
    throw CheckFailed(record);
  return record;
}

// The check after the timed blocks: the very tensors `call` was timed on are filled with fresh
// values (another seed, the same shapes and ranges), and what the implementation returns on them
// is held against the baseline's on copies of them. A kernel that caches on its inputs' addresses
// returns what it returned for the old values; one that goes wrong after many calls is past them.
std::function<void(results::OutputCheck&)> check_after(const results::Case& c,
                                                       std::shared_ptr<PreparedCall> call) {
  return [c, call](results::OutputCheck& record) {
    if (!record.not_made.empty())
      return;
    results::Case reseeded = c;
    reseeded.seed = c.seed ^ 0x9E3779B97F4A7C15ull;
    const TensorFunction fresh = operator_function(reseeded);
    std::vector<at::Tensor> timed;
    for (const c10::IValue& value : call->args) {
      if (value.isTensor() && value.toTensor().defined())
        timed.push_back(value.toTensor());
    }
    if (timed.size() != fresh.inputs.size())
      return;
    {
      at::NoGradGuard no_grad;
      for (std::size_t k = 0; k < timed.size(); ++k)
        timed[k].copy_(fresh.inputs[k]);
    }
    const auto expected = baseline_outputs(c, timed, record);
    if (!expected)
      return;
    const TensorFunction mine = operator_function(c);
    const std::vector<at::Tensor> actual = mine.body(timed);
    ++record.after;
    hold_to_baseline(c, *expected, actual, "after", record);
  };
}

// A loaded library's operator returns what its schema says it does: a defined tensor for each
// `Tensor` it returns (a kernel that returns at::Tensor() would be timed as if it computed
// something). One call on the case's inputs, which are then put back. Throws Error saying which
// return.
void check_returns(const results::Case& c, PreparedCall& call) {
  if (c.library.empty())
    return;
  const Restore put_back = restore_of(call); // what the call writes, as made
  std::vector<c10::IValue> stack(call.args.begin(), call.args.end());
  hold_phase(Phase::check);
  call.handle.callBoxed(stack);
  hold_phase(Phase::inputs);
  const auto& returns = call.handle.schema().returns();
  for (std::size_t i = 0; i < returns.size() && i < stack.size(); ++i) {
    if (returns[i].type()->kind() != c10::TypeKind::TensorType)
      continue;
    if (!stack[i].isTensor() || !stack[i].toTensor().defined()) {
      throw Error("its kernel returned an undefined tensor for return " + std::to_string(i) +
                  " of " + call.handle.schema().name() +
                  ", whose schema returns a Tensor there: nothing would be timed");
    }
  }
  put_back();
}

} // namespace opbench::exec
