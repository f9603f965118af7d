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

std::vector<Planned> plan_sizes(const plan::Selection& selection, const std::string& sizes_file,
                                const std::vector<SizeSet>& sizes,
                                const std::vector<results::Stage>& stages) {
  std::vector<Planned> planned(stages.size());
  plan::Selection every_stage = selection;
  every_stage.stages.clear();
  for (const results::Stage stage : stages)
    every_stage.stages.push_back(core::name_of(stage));
  for (const SizeSet& set : sizes) {
    const std::string where = sizes_file + ":" + std::to_string(set.line) + ": ";
    plan::Selection at_size = every_stage;
    at_size.axes.insert(at_size.axes.end(), set.axes.begin(), set.axes.end());
    std::vector<results::Case> cases;
    try {
      cases = plan::select(at_size); // one select a set, every stage in it
    } catch (const Error& e) {
      throw UsageError(where + core::first_line(e.what()));
    }
    for (std::size_t i = 0; i < stages.size(); ++i) {
      std::vector<results::Case>& at_stage = planned[i].emplace_back();
      for (const results::Case& c : cases)
        if (c.stage == stages[i])
          at_stage.push_back(c);
      if (at_stage.empty())
        throw UsageError(where + "'" + set.text() + "' plans no case of the selection" +
                         (stages.size() > 1 ? " at " + core::name_of(stages[i]) : ""));
    }
  }
  return planned;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string failure(const std::exception& e) {
  return core::first_line(core::trim(e.what()));
}

// One call of a replay, made before the replay starts: what is called at which size set.
struct Target {
  int line = 0;
  std::string id; // the case id; a program: its file and the size set
  std::string device = "cpu";
  int threads = 1;
  // Its inputs (made untimed before each call), and eager's computation on them (`body` empty:
  // nothing to hold the stage's outputs to).
  std::function<stages::TensorFunction()> make;
  // The stage on the inputs; empty: eager, `body` itself.
  std::function<Tensors(const Tensors&)> call;
  std::function<std::string(const Tensors&)> refuses; // empty: every size is taken
  std::function<int()> plans;                         // empty: not counted
  std::optional<CallStatus> preset; // not called: skipped or error, saying `preset_message`
  std::string preset_message;

  void enter() const {
    if (at::get_num_threads() != threads)
      at::set_num_threads(threads);
  }
  // Waits for the device's queued work, so that a host clock read next covers it.
  void settle() const {
#if OPBENCH_WITH_CUDA
    if (machine::device_of(device).is_cuda())
      c10::cuda::device_synchronize();
#endif
  }
  // One call on `f`'s inputs (restored first) and its seconds, the device waited for.
  Tensors timed(const stages::TensorFunction& f, double& seconds) const {
    f.restore();
    settle();
    const Clock::time_point start = Clock::now();
    Tensors outputs = call ? call(f.inputs) : f.body(f.inputs);
    settle();
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return outputs;
  }
};

// The steady time of `t`: the median of `calls` timed calls after two; each call held
// (measure/holding.hpp) as a repetition of its own.
std::optional<double> steady_time(const Target& t, int calls) {
  try {
    t.enter();
    const stages::TensorFunction f = t.make();
    std::vector<double> seconds;
    for (int i = 0; i < calls + 2; ++i) {
      measure::hold(t.id, i, measure::Phase::timed); // each call its own limit
      double took = 0;
      const Tensors out = t.timed(f, took);
      if (i >= 2)
        seconds.push_back(took);
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

// The replay of `targets` in order into `out` (the stage as made), then their steady times.
StageReplay replay_targets(const std::vector<Target>& targets, StageReplay out, int steady_calls,
                           const std::string& journal_path) {
  Journal journal(journal_path);
  at::NoGradGuard no_grad;
  // Every size's refusal probed before the first timed call.
  std::map<std::string, std::string> refused; // id -> why ("" taken)
  for (const Target& t : targets) {
    if (t.preset || !t.refuses || refused.count(t.id) != 0)
      continue;
    measure::hold(t.id, t.line, measure::Phase::inputs);
    try {
      t.enter();
      refused[t.id] = t.refuses(t.make().inputs);
    } catch (const std::exception& e) {
      refused[t.id] = failure(e);
    }
  }
  measure::release_hold();
  journal.write({{"made",
                  {{"runner", out.runner},
                   {"made_from", out.made_from},
                   {"made_in_seconds", out.made_in},
                   {"cached", out.cached}}}});
  std::set<std::string> seen;
  for (const Target& t : targets) {
    ReplayCall call;
    call.line = t.line;
    call.case_id = t.id;
    call.first_at_size = seen.insert(t.id).second;
    const auto why = refused.find(t.id);
    if (t.preset || (why != refused.end() && !why->second.empty())) {
      call.status = t.preset ? *t.preset : CallStatus::refused;
      call.message = t.preset ? t.preset_message : why->second;
      journal.write(to_json(call));
      out.calls.push_back(std::move(call));
      continue;
    }
    journal.write({{"starting", true},
                   {"line", call.line},
                   {"case_id", call.case_id},
                   {"first_at_size", call.first_at_size}});
    measure::hold(t.id, call.line, measure::Phase::timed);
    try {
      t.enter();
      const stages::TensorFunction f = t.make(); // untimed: the inputs arrive
      const int before = t.plans ? t.plans() : 0;
      double seconds = 0;
      const Tensors outputs = t.timed(f, seconds);
      call.seconds = seconds;
      if (t.plans) {
        call.plans = t.plans();
        call.compiled = std::max(0, *call.plans - before);
      }
      if (t.call && f.body) {
        f.restore();
        Tensors eager;
        for (const at::Tensor& e : f.body(f.inputs))
          if (e.defined())
            eager.push_back(e);
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
  // The steady state, after the whole replay: each target the replay called well, once.
  std::map<std::string, std::optional<double>> steady;
  for (const Target& t : targets) {
    if (steady.count(t.id) != 0)
      continue;
    const bool called = std::any_of(out.calls.begin(), out.calls.end(), [&](const auto& call) {
      return call.case_id == t.id && call.status == CallStatus::ok;
    });
    steady[t.id] = called ? steady_time(t, steady_calls) : std::nullopt;
    measure::release_hold();
  }
  for (ReplayCall& call : out.calls) {
    if (call.status == CallStatus::ok)
      call.steady = steady.at(call.case_id);
  }
  return out;
}

} // namespace

StageReplay replay_here(const std::vector<std::vector<results::Case>>& planned,
                        const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                        const std::string& journal_path) {
  StageReplay out;
  out.stage = stage;
  out.steady_calls = steady_calls;
  out.runner = "aten";
  at::NoGradGuard no_grad;
  // A dynamic stage is made once a sample, before the first timed call; a sample whose stage
  // cannot be made fails its own calls only.
  std::map<std::string, std::shared_ptr<stages::SizeFreeStage>> made; // by sample
  std::map<std::string, std::pair<CallStatus, std::string>> unmade;   // by sample
  std::vector<Target> targets;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    for (const results::Case& c : planned[i]) {
      Target t;
      t.line = sizes.at(i).line;
      t.id = c.case_id;
      t.device = c.device;
      t.threads = c.threads;
      t.make = [c] { return exec::case_function(c); };
      if (stage != results::Stage::eager && made.count(c.name) == 0 && unmade.count(c.name) == 0) {
        measure::hold(c.case_id, t.line, measure::Phase::inputs);
        try {
          t.enter();
          auto one = std::make_shared<stages::SizeFreeStage>(
              stages::size_free_stage(c, exec::case_function(c)));
          out.runner = one->runner;
          out.made_from = one->made_from;
          out.made_in += one->made_in;
          out.cached = one->cached;
          made[c.name] = one;
        } catch (const std::exception& e) {
          const bool skip = dynamic_cast<const measure::SkipCase*>(&e) != nullptr;
          unmade[c.name] = {skip ? CallStatus::skipped : CallStatus::error, failure(e)};
        }
        measure::release_hold();
      }
      if (const auto it = unmade.find(c.name); it != unmade.end()) {
        t.preset = it->second.first;
        t.preset_message = "the stage could not be made for " + c.name + ": " + it->second.second;
      } else if (const auto stage_of = made.find(c.name); stage_of != made.end()) {
        const std::shared_ptr<stages::SizeFreeStage> one = stage_of->second;
        t.call = [one](const Tensors& inputs) { return one->call(inputs); };
        t.refuses = one->refuses;
        t.plans = one->plans;
      }
      targets.push_back(std::move(t));
    }
  }
  if (!unmade.empty() && made.empty()) {
    out.ok = false;
    out.skipped = std::all_of(unmade.begin(), unmade.end(),
                              [](const auto& u) { return u.second.first == CallStatus::skipped; });
    out.message = unmade.begin()->second.second;
    return out;
  }
  return replay_targets(targets, std::move(out), steady_calls, journal_path);
}

namespace {

// The program's inputs at `set`'s sizes (its examples where the set names none).
stages::TensorFunction program_inputs(const Program& program, const SizeSet& set,
                                      const std::string& device, std::uint64_t seed) {
  std::map<std::string, std::int64_t> sizes = program.examples;
  for (const std::string& axis : set.axes) {
    const auto equals = axis.find('=');
    sizes[axis.substr(0, equals)] = std::stoll(axis.substr(equals + 1));
  }
  at::manual_seed(seed);
  stages::TensorFunction f;
  for (const Json& input : program.inputs) {
    std::vector<std::int64_t> shape;
    for (const Json& size : input.at("shape")) {
      if (size.is_number_integer()) {
        shape.push_back(size.get<std::int64_t>());
        continue;
      }
      const auto it = sizes.find(size.get<std::string>());
      if (it == sizes.end())
        throw Error("the program's input " + input.at("name").get<std::string>() + " has a size " +
                    size.get<std::string>() + " that no set names");
      shape.push_back(it->second);
    }
    const auto options = at::TensorOptions()
                             .dtype(machine::scalar_type(input.at("dtype").get<std::string>()))
                             .device(machine::device_of(device));
    f.inputs.push_back(at::isFloatingType(options.dtype().toScalarType())
                           ? at::randn(shape, options)
                           : at::randint(0, 2, shape, options));
  }
  return f;
}

} // namespace

std::optional<Program> program_of(const std::string& config) {
  const std::optional<Json> json = core::parse_json(core::read_file(config));
  if (!json)
    throw ConfigError(config + ": not JSON");
  if (!json->is_object() || !json->contains("exported"))
    return std::nullopt;
  const Json& exported = json->at("exported");
  if (!exported.contains("inputs") || !exported.contains("path"))
    return std::nullopt;
  Program program;
  program.path = exported.at("path").get<std::string>();
  program.inputs = exported.at("inputs");
  const Json dims = exported.value("dims", Json::object());
  for (const auto& [name, dim] : dims.items()) {
    if (dim.contains("example") && dim.at("example").is_number_integer())
      program.examples[name] = dim.at("example").get<std::int64_t>();
  }
  return program;
}

StageReplay replay_program_here(const Program& program, const std::vector<SizeSet>& sizes,
                                const std::string& device, int threads, std::uint64_t seed,
                                int steady_calls, const std::string& journal) {
  StageReplay out;
  out.stage = results::Stage::inductor_dynamic;
  out.steady_calls = steady_calls;
  std::shared_ptr<stages::SizeFreeStage> made;
  try {
    measure::hold(program.path, 0, measure::Phase::inputs);
    made = std::make_shared<stages::SizeFreeStage>(stages::program_stage(program.path));
    measure::release_hold();
  } catch (const std::exception& e) {
    measure::release_hold();
    out.ok = false;
    out.skipped = dynamic_cast<const measure::SkipCase*>(&e) != nullptr;
    out.message = failure(e);
    return out;
  }
  out.runner = made->runner;
  out.made_from = made->made_from;
  out.made_in = made->made_in;
  out.cached = made->cached;
  std::vector<Target> targets;
  for (const SizeSet& set : sizes) {
    Target t;
    t.line = set.line;
    t.id = "program " + core::filename(program.path) + " " + set.text();
    t.device = device;
    t.threads = threads;
    t.make = [&program, set, device, seed] { return program_inputs(program, set, device, seed); };
    t.call = [made](const Tensors& inputs) { return made->call(inputs); };
    t.refuses = made->refuses;
    targets.push_back(std::move(t));
  }
  return replay_targets(targets, std::move(out), steady_calls, journal);
}

void replay_part(const std::vector<std::vector<results::Case>>& planned,
                 const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                 const std::string& part, const std::optional<Program>& program) {
  measure::open_hold_file(part + ".hold");
  const results::Case& first = planned.at(0).at(0);
  const StageReplay replayed =
      program && stage == results::Stage::inductor_dynamic
          ? replay_program_here(*program, sizes, first.device, first.threads, first.seed,
                                steady_calls, part + ".journal")
          : replay_here(planned, sizes, stage, steady_calls, part + ".journal");
  core::write_atomically(part, to_json(replayed).dump(1) + "\n");
}

} // namespace opbench::replay
