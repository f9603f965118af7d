#include "opbench/ab/ab.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <regex>

#include "duet_cpus.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/results/setup_difference.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/child_runs.hpp"
#include "opbench/run/interrupt.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::ab {
namespace {

using stats::k_nan;

// What each side measured of a case besides its times: its memory in round 1, and the context and
// seed that memory was measured with.
struct MemorySide {
  std::optional<results::MemoryStats> stats;
  Json context = Json::object();
  std::uint64_t seed = 0;
  bool probed = false;
};

struct CaseMemory {
  MemorySide base;
  MemorySide fresh;
};

// The arguments of one side run over `plan`.
std::vector<std::string> side_args(const AbSettings& settings, const Side& side,
                                   const std::string& plan, const std::string& output, int round) {
  const run::RunSettings& m = settings.measuring;
  std::vector<std::string> args = {
      "opbench",
      "run",
      "--from",
      plan,
      "--repetitions",
      std::to_string(settings.side_repetitions),
      "--processes",
      "1",
      "--output",
      output,
      "--seed",
      std::to_string(settings.seed + static_cast<std::uint64_t>(round)),
      "--retries",
      std::to_string(m.retries),
      "--slow-tolerance",
      fmt::format("{}", m.slow_tolerance),
      "--bandwidth-tolerance",
      fmt::format("{}", m.bandwidth_tolerance)};
  run::RunSettings own = m;
  own.libraries = side.libraries;
  const std::vector<std::string> measuring = run::measuring_args(own);
  args.insert(args.end(), measuring.begin(), measuring.end());
  if (m.case_timeout > 0)
    args.insert(args.end(), {"--case-timeout", fmt::format("{}", m.case_timeout)});
  if (!m.peaks.empty())
    args.insert(args.end(), {"--peaks", m.peaks});
  if (round > 1 || !settings.memory)
    args.emplace_back("--no-memory");
  return args;
}

// The library a side loads in place of `library` (a case's, as this process planned it): the
// sides' libraries pair by position, and where they differ the side's own stands in.
std::string side_library(const AbSettings& settings, const std::string& library, bool base_side) {
  if (library.empty())
    return library;
  const auto& base = settings.base.libraries;
  const auto& fresh = settings.new_side.libraries;
  for (std::size_t i = 0; i < std::min(base.size(), fresh.size()); ++i) {
    for (const auto* of : {&base[i], &fresh[i]}) {
      if (*of == library || *of == core::absolute_path(library))
        return base_side ? base[i] : fresh[i];
    }
  }
  return library;
}

// The case's time in a side run's result: its fastest repetition's median (interference only
// adds time: results/estimate.hpp); NaN when it has none.
double round_time(const results::CaseResult& r) {
  if (r.status != results::Status::ok || r.timing.repetition_medians.empty())
    return k_nan;
  return results::estimate_with("min", r.timing.repetition_medians);
}

std::string status_text(const results::CaseResult& r) {
  return core::name_of(r.status) + (r.message.empty() ? "" : ": " + r.message);
}

// The blocks of case indices, in plan order: as few as hold at most `block_cases` each, their
// sizes as even as they divide (49 cases in blocks of 24: 17, 16, 16, not 24, 24, 1: a side run
// costs its process starts however few cases it measures).
std::vector<std::vector<std::size_t>> blocks_of(std::size_t cases, std::size_t block_cases) {
  std::vector<std::vector<std::size_t>> blocks;
  if (cases == 0)
    return blocks;
  const std::size_t size = block_cases == 0 ? cases : block_cases;
  const std::size_t count = (cases + size - 1) / size;
  std::size_t next = 0;
  for (std::size_t b = 0; b < count; ++b) {
    const std::size_t n = cases / count + (b < cases % count ? 1 : 0);
    blocks.emplace_back();
    for (std::size_t k = 0; k < n; ++k)
      blocks.back().push_back(next++);
  }
  return blocks;
}

void write_file(const AbResult& result, const std::string& output) {
  core::write_atomically(output, to_json(result).dump(1) + "\n");
}

// Takes one side run's result into `result`: each case's round time, its error where it measured
// none, its memory in round 1; a run that left no readable result makes every case of its block an
// error of that side in this round. Sets sr.result to "" and sr.how when it left none.
void absorb(AbResult& result, std::vector<CaseMemory>& memory, SideRun& sr,
            const run::ChildExit& exit, const std::vector<std::size_t>& block,
            const std::map<std::string, std::size_t>& index, int round,
            const AbObserver& observer) {
  const bool base_side = sr.side == "base";
  const std::string file = sr.result;
  sr.result.clear();
  std::optional<results::ResultSet> set;
  if (core::is_regular_file(file)) {
    try {
      set = results::load_results(file);
      sr.result = file;
    } catch (const Error& e) {
      sr.how = std::string("its result file could not be read: ") + e.what();
    }
  } else {
    sr.how = "it ended without a result file (" + run::describe(exit) + ")";
  }
  if (!set) {
    for (std::size_t i : block)
      (base_side ? result.cases[i].base_error : result.cases[i].new_error) =
          "error: the " + sr.side + " side's run of round " + std::to_string(round) +
          " measured nothing: " + sr.how;
    if (observer.note)
      observer.note(
          fmt::format("round {}, block {}: the {} side's run measured nothing: {} (log: {})", round,
                      sr.block, sr.side, sr.how, sr.log));
    return;
  }
  Json& context = base_side ? result.base_context : result.new_context;
  if (context.empty())
    context = set->context;
  for (const auto& r : set->cases) {
    const auto at = index.find(r.c.case_id);
    if (at == index.end())
      continue;
    AbCase& c = result.cases[at->second];
    (base_side ? c.paired.base : c.paired.new_times).back() = round_time(r);
    if (r.status != results::Status::ok)
      (base_side ? c.base_error : c.new_error) = status_text(r);
    MemorySide& m = base_side ? memory[at->second].base : memory[at->second].fresh;
    if (round == 1 && r.memory) {
      m.stats = r.memory;
      m.context = set->context;
      m.seed = r.c.seed;
      m.probed = true;
    }
  }
}

} // namespace

results::VerdictCounts AbResult::counts() const {
  results::VerdictCounts counts;
  for (const auto& c : cases)
    counts.add(c.paired.verdict, c.paired.memory.verdict);
  return counts;
}

void check_side(Side& side, const std::string& what, const std::string& work_dir) {
  if (!core::is_regular_file(side.binary))
    throw UsageError(what + " " + side.binary + ": no such file");
  const std::string out = work_dir + "/version-" + what.substr(2) + ".txt";
  const run::ChildExit exit =
      run::run_program(side.binary, {side.binary, "--version"}, out, "/dev/null");
  const std::string text = core::is_regular_file(out) ? core::trim(core::read_file(out)) : "";
  // "opbench 0.1.0", and from result schema 2 on "opbench X (result schema N)".
  static const std::regex pattern(R"(^opbench (\S+)( \(result schema ([0-9]+)\))?$)");
  std::smatch match;
  const std::string first_line = text.substr(0, text.find('\n'));
  if (!exit.started || WIFSIGNALED(exit.status) || WEXITSTATUS(exit.status) != 0 ||
      !std::regex_match(first_line, match, pattern)) {
    throw UsageError(
        fmt::format("{} {}: not an opbench (its --version {}{})", what, side.binary,
                    exit.started ? "said " : "did not run",
                    exit.started ? "'" + first_line.substr(0, 80) + "'" : run::describe(exit)));
  }
  if (match[3].matched && std::stoi(match[3].str()) > results::k_schema_version) {
    throw UsageError(fmt::format("{} {}: it writes result schema {}, this opbench reads up to {}",
                                 what, side.binary, match[3].str(), results::k_schema_version));
  }
  side.version = first_line;
}

std::vector<std::size_t> still_open(const AbResult& result, const AbSettings& settings) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < result.cases.size(); ++i) {
    const PairedCase& p = result.cases[i].paired;
    const bool known = p.verdict == results::Verdict::same &&
                       (settings.precision <= 0 || p.seeable <= settings.precision);
    if (settings.stop_after <= 0 || p.pairs < static_cast<std::size_t>(settings.stop_after) ||
        !known)
      out.push_back(i);
  }
  return out;
}

void judge(AbResult& result) {
  std::vector<PairedCase> paired;
  paired.reserve(result.cases.size());
  for (const auto& c : result.cases)
    paired.push_back(c.paired);
  judge_paired(paired, result.settings.verdict);
  for (std::size_t i = 0; i < paired.size(); ++i)
    result.cases[i].paired = paired[i];
  // Over the rounds every case was measured in (before any stopped).
  const int stop = result.settings.stop_after;
  result.suite =
      suite_ratio(paired, result.settings.verdict, stop > 0 ? static_cast<std::size_t>(stop) : 0);
  // Two opbench builds may measure in other setups (another LibTorch, host allocator): say so.
  result.notes.clear();
  if (std::string note =
          results::setup_difference(result.base_context, result.new_context, "sides");
      !note.empty())
    result.notes.push_back(std::move(note));
}

AbResult run_ab(const std::vector<results::Case>& cases, const AbSettings& settings,
                const std::string& output, const std::string& command_line,
                const AbObserver& observer) {
  AbResult result;
  result.settings = settings;
  result.command_line = command_line;
  for (const auto& c : cases) {
    AbCase ab_case;
    ab_case.c = c;
    ab_case.paired.case_id = c.case_id;
    result.cases.push_back(std::move(ab_case));
  }
  std::vector<CaseMemory> memory(cases.size());
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < cases.size(); ++i)
    index[cases[i].case_id] = i;

  const bool duet = settings.schedule == Schedule::duet;
  const std::array<std::vector<int>, 2> halves =
      duet ? duet_halves(cases) : std::array<std::vector<int>, 2>{};
  core::create_directories(settings.work_dir);
  run::InterruptGuard guard;
  std::mt19937_64 order(settings.seed);
  const auto start = std::chrono::steady_clock::now();
  double round_seconds_per_case = 0; // the last round's
  for (int round = 1; round <= settings.rounds; ++round) {
    const std::vector<std::size_t> active = still_open(result, settings);
    if (active.empty()) {
      result.ended = fmt::format("every case decided after {} round(s)", round - 1);
      break;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (settings.budget > 0 && round > 1 &&
        elapsed + round_seconds_per_case * static_cast<double>(active.size()) > settings.budget) {
      result.ended = fmt::format("the budget of {:.0f} s: round {} would have ended past it",
                                 settings.budget, round);
      break;
    }
    for (auto& c : result.cases) {
      c.paired.base.push_back(k_nan);
      c.paired.new_times.push_back(k_nan);
    }
    // This round's blocks of the active cases, and each side's plan of each block: the same
    // cases, their operators' library the side's own (`run --from` runs a case only with the
    // library it names loaded).
    std::vector<std::vector<std::size_t>> blocks;
    for (const auto& block : blocks_of(active.size(), settings.block_cases)) {
      blocks.emplace_back();
      for (std::size_t k : block)
        blocks.back().push_back(active[k]);
    }
    std::vector<std::string> plans[2];
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (const bool base_side : {true, false}) {
        std::vector<results::Case> block;
        for (std::size_t i : blocks[b]) {
          block.push_back(cases[i]);
          block.back().library = side_library(settings, cases[i].library, base_side);
        }
        plans[base_side ? 0 : 1].push_back(fmt::format("{}/plan-round-{}-block-{}-{}.json",
                                                       settings.work_dir, round, b + 1,
                                                       base_side ? "base" : "new"));
        run::write_plan(block, plans[base_side ? 0 : 1].back());
      }
    }
    const auto round_start = std::chrono::steady_clock::now();
    std::vector<std::size_t> block_order(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b)
      block_order[b] = b;
    std::shuffle(block_order.begin(), block_order.end(), order);
    for (std::size_t b : block_order) {
      const bool base_first = (order() & 1U) == 0;
      // The block's side runs in their drawn order; in a duet the first takes the first half of
      // the CPUs, so the draw also swaps the halves between the sides.
      std::vector<SideRun> pair;
      std::vector<run::Program> programs;
      for (const bool base_side : {base_first, !base_first}) {
        SideRun sr;
        sr.round = round;
        sr.block = static_cast<int>(b + 1);
        sr.side = base_side ? "base" : "new";
        const std::string stem =
            fmt::format("{}/round-{}-block-{}-{}", settings.work_dir, round, b + 1, sr.side);
        sr.log = stem + ".log";
        sr.result = stem + ".json";
        if (duet)
          sr.cpus = halves[pair.size()];
        const Side& side = base_side ? settings.base : settings.new_side;
        programs.push_back(
            {side.binary, side_args(settings, side, plans[base_side ? 0 : 1][b], sr.result, round),
             "", sr.log, sr.cpus});
        pair.push_back(std::move(sr));
      }
      std::vector<run::ChildExit> exits;
      if (duet) {
        const auto began = std::chrono::steady_clock::now();
        exits = run::run_programs(programs);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        for (auto& sr : pair)
          sr.seconds = seconds;
      }
      for (std::size_t k = 0; k < pair.size(); ++k) {
        SideRun& sr = pair[k];
        if (!duet) {
          const auto began = std::chrono::steady_clock::now();
          const run::Program& p = programs[k];
          exits.push_back(run::run_program(p.path, p.args, p.out, p.log));
          sr.seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        }
        if (const int signal = run::interrupted(); signal != 0) {
          result.interrupted = true;
          for (std::size_t done = 0; done <= k; ++done)
            result.runs.push_back(pair[done]);
          judge(result);
          write_file(result, output);
          throw run::Interrupted(signal, output);
        }
        absorb(result, memory, sr, exits[k], blocks[b], index, round, observer);
        result.runs.push_back(sr);
        if (observer.side_done)
          observer.side_done(
              result, sr,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
    result.rounds_done = round;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const CaseMemory& m = memory[i];
      const std::string setup =
          m.base.probed && m.fresh.probed
              ? results::memory_setup_difference(m.base.context, m.base.seed, m.fresh.context,
                                                 m.fresh.seed)
              : std::string();
      result.cases[i].paired.memory =
          results::judge_memory(m.base.stats, m.fresh.stats, cases[i].device, setup);
    }
    judge(result);
    write_file(result, output);
    round_seconds_per_case =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - round_start).count() /
        static_cast<double>(active.size());
    if (observer.round_done) {
      observer.round_done(
          result, result.cases.size() - still_open(result, settings).size(), active.size(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  if (!result.ended.empty())
    write_file(result, output);
  return result;
}

} // namespace opbench::ab
