// `opbench replay`'s calls (replay.hpp): the size sets planned, and one stage replayed in this
// process.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/names.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/case_function.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/output_check.hpp"
#include "opbench/measure/workload.hpp"
#include "opbench/replay/replay.hpp"
#include "opbench/stages/size_free.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::replay {

using Tensors = std::vector<at::Tensor>;

std::vector<std::vector<results::Case>> plan_sizes(const plan::Selection& selection,
                                                   const std::string& sizes_file,
                                                   const std::vector<SizeSet>& sizes,
                                                   results::Stage stage) {
  std::vector<std::vector<results::Case>> planned;
  for (const SizeSet& set : sizes) {
    plan::Selection at_size = selection;
    at_size.axes.insert(at_size.axes.end(), set.axes.begin(), set.axes.end());
    at_size.stages = {core::name_of(stage)};
    try {
      planned.push_back(plan::select(at_size));
    } catch (const Error& e) {
      throw UsageError(sizes_file + ":" + std::to_string(set.line) + ": " +
                       core::first_line(e.what()));
    }
    if (planned.back().empty())
      throw UsageError(sizes_file + ":" + std::to_string(set.line) + ": '" + set.text() +
                       "' plans no case of the selection");
  }
  return planned;
}

namespace {

using Clock = std::chrono::steady_clock;

// Waits for the device's queued work, so that a host clock read next covers it.
void settle(const results::Case& c) {
#if OPBENCH_WITH_CUDA
  if (machine::device_of(c.device).is_cuda())
    c10::cuda::device_synchronize();
#else
  (void)c;
#endif
}

void use_threads(const results::Case& c) {
  if (at::get_num_threads() != c.threads)
    at::set_num_threads(c.threads);
}

std::string failure(const std::exception& e) {
  return core::first_line(core::trim(e.what()));
}

// What replay_here calls: the case's own computation (eager), or the stage made for its sample.
struct Caller {
  results::Stage stage;
  std::map<std::string, stages::SizeFreeStage> made; // by sample name

  Tensors call(const results::Case& c, const stages::TensorFunction& f) const {
    if (stage == results::Stage::eager)
      return f.body(f.inputs);
    return made.at(c.name).call(f.inputs);
  }
  std::optional<int> plans(const results::Case& c) const {
    if (stage == results::Stage::eager || !made.at(c.name).plans)
      return std::nullopt;
    return made.at(c.name).plans();
  }
};

// The steady time of `c` at `caller`'s stage: the median of `calls` timed calls after two; each
// call held (measure/holding.hpp) as a repetition of its own.
std::optional<double> steady_time(const Caller& caller, const results::Case& c, int calls) {
  try {
    use_threads(c);
    const stages::TensorFunction f = exec::case_function(c);
    std::vector<double> seconds;
    for (int i = 0; i < calls + 2; ++i) {
      measure::hold(c.case_id, i, measure::Phase::timed); // each call its own limit
      f.restore();
      settle(c);
      const Clock::time_point start = Clock::now();
      const Tensors out = caller.call(c, f);
      settle(c);
      if (i >= 2)
        seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return stats::median(seconds);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// replay_here's journal: one JSON a line, each written out before the next call.
class Journal {
public:
  explicit Journal(const std::string& path) {
    if (!path.empty())
      m_out.open(path, std::ios::trunc);
  }
  void write(const Json& line) {
    if (m_out.is_open())
      m_out << line.dump() << '\n' << std::flush;
  }

private:
  std::ofstream m_out;
};

} // namespace

StageReplay replay_here(const std::vector<std::vector<results::Case>>& planned,
                        const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                        const std::string& journal_path) {
  Journal journal(journal_path);
  StageReplay out;
  out.stage = stage;
  out.steady_calls = steady_calls;
  out.runner = "aten";
  at::NoGradGuard no_grad;
  Caller caller{stage, {}};
  std::map<std::string, std::string> refused; // case id -> why
  std::map<std::string, std::string> unmade;  // sample -> why its stage could not be made
  std::set<std::string> unmade_skipped;       // those that are measure::SkipCase
  bool all_skipped = true;
  // Every stage is made, and every size's refusal probed, before the first timed call; a sample
  // whose stage cannot be made fails its own calls only.
  for (std::size_t i = 0; i < planned.size() && stage != results::Stage::eager; ++i) {
    for (const results::Case& c : planned[i]) {
      if (unmade.count(c.name) != 0 || refused.count(c.case_id) != 0)
        continue;
      measure::hold(c.case_id, sizes.at(i).line, measure::Phase::inputs);
      try {
        use_threads(c);
        if (caller.made.count(c.name) == 0) {
          stages::SizeFreeStage made = stages::size_free_stage(c, exec::case_function(c));
          out.runner = made.runner;
          out.made_from = made.made_from;
          out.made_in += made.made_in;
          out.cached = made.cached;
          caller.made.emplace(c.name, std::move(made));
        }
        const stages::TensorFunction f = exec::case_function(c);
        refused[c.case_id] = caller.made.at(c.name).refuses(f.inputs);
      } catch (const std::exception& e) {
        if (caller.made.count(c.name) == 0) {
          unmade[c.name] = failure(e);
          if (dynamic_cast<const measure::SkipCase*>(&e) != nullptr)
            unmade_skipped.insert(c.name);
          else
            all_skipped = false;
        } else {
          refused[c.case_id] = failure(e);
        }
      }
    }
  }
  if (!unmade.empty() && caller.made.empty()) {
    measure::release_hold();
    out.ok = false;
    out.skipped = all_skipped;
    out.message = unmade.begin()->second;
    return out;
  }
  measure::release_hold();
  journal.write({{"made",
                  {{"runner", out.runner},
                   {"made_from", out.made_from},
                   {"made_in_seconds", out.made_in},
                   {"cached", out.cached}}}});
  std::set<std::string> seen;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    for (const results::Case& c : planned[i]) {
      ReplayCall call;
      call.line = sizes.at(i).line;
      call.case_id = c.case_id;
      call.first_at_size = seen.insert(c.case_id).second;
      const auto why = refused.find(c.case_id);
      if (unmade.count(c.name) != 0 || (why != refused.end() && !why->second.empty())) {
        call.status = unmade.count(c.name) == 0           ? CallStatus::refused
                      : unmade_skipped.count(c.name) != 0 ? CallStatus::skipped
                                                          : CallStatus::error;
        call.message = unmade.count(c.name) != 0
                           ? "the stage could not be made for " + c.name + ": " + unmade[c.name]
                           : why->second;
        journal.write(to_json(call));
        out.calls.push_back(std::move(call));
        continue;
      }
      journal.write({{"starting", true},
                     {"line", call.line},
                     {"case_id", call.case_id},
                     {"first_at_size", call.first_at_size}});
      measure::hold(c.case_id, call.line, measure::Phase::timed);
      try {
        use_threads(c);
        const stages::TensorFunction f = exec::case_function(c); // untimed: the inputs arrive
        const std::optional<int> before = caller.plans(c);
        f.restore();
        settle(c);
        const Clock::time_point start = Clock::now();
        const Tensors outputs = caller.call(c, f);
        settle(c);
        call.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        call.plans = caller.plans(c);
        if (call.plans && before)
          call.compiled = std::max(0, *call.plans - *before);
        if (stage != results::Stage::eager) {
          f.restore();
          Tensors eager;
          for (const at::Tensor& t : f.body(f.inputs))
            if (t.defined())
              eager.push_back(t);
          double worst = 0;
          const std::string differs = measure::outputs_differ(eager, outputs, worst);
          if (!differs.empty()) {
            call.status = CallStatus::differs;
            call.message = differs;
          }
        }
      } catch (const std::exception& e) {
        call.status = CallStatus::error;
        call.message = failure(e);
      }
      measure::release_hold();
      journal.write(to_json(call));
      out.calls.push_back(std::move(call));
    }
  }
  // The steady state, after the whole replay: each case the replay called well.
  std::map<std::string, std::optional<double>> steady;
  for (const auto& cases : planned) {
    for (const results::Case& c : cases) {
      if (steady.count(c.case_id) != 0)
        continue;
      const bool called = std::any_of(out.calls.begin(), out.calls.end(), [&](const auto& call) {
        return call.case_id == c.case_id && call.status == CallStatus::ok;
      });
      steady[c.case_id] = called ? steady_time(caller, c, steady_calls) : std::nullopt;
      measure::release_hold();
    }
  }
  for (ReplayCall& call : out.calls) {
    if (call.status == CallStatus::ok)
      call.steady = steady.at(call.case_id);
  }
  return out;
}

void replay_part(const std::vector<std::vector<results::Case>>& planned,
                 const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                 const std::string& part) {
  measure::open_hold_file(part + ".hold");
  const StageReplay replayed = replay_here(planned, sizes, stage, steady_calls, part + ".journal");
  core::write_atomically(part, to_json(replayed).dump(1) + "\n");
}

} // namespace opbench::replay
