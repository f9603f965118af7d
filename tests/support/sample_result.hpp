#pragma once
// A made-up result of `add` for the results tests: `samples` as its blocks, 16 bytes of memory.

#include <string>
#include <utility>
#include <vector>

#include "opbench/results/result_set.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results::testing_support {

inline CaseResult make_result(const std::string& id, std::vector<double> samples) {
  CaseResult r;
  r.c.case_id = id;
  r.c.name = "add";
  r.c.kind = results::Kind::op;
  r.c.op = "aten::add.Tensor";
  r.c.given = {{"self", {{"shape", {4}}}}};
  r.c.dtype = "float32";
  r.c.device = "cpu";
  r.c.threads = 1;
  r.c.direction = results::Direction::forward;
  r.samples = std::move(samples);
  r.summary = stats::summarize(r.samples);
  r.timing.timer = results::Timer::steady_clock;
  r.timing.block_size = 100;
  r.memory = MemoryStats{};
  r.memory->peak_bytes = 16;
  r.memory->total_bytes = 16;
  r.memory->allocations = 1;
  return r;
}

} // namespace opbench::results::testing_support
