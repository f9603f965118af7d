// Markdown view of a comparison: a table per case, then the summary.
#include <fmt/format.h>

#include "opbench/core/strings.hpp"

#include <cmath>

#include "opbench/compare/compare.hpp"
#include "opbench/core/units.hpp"

namespace opbench::compare {

void write_markdown(const Comparison& comparison, std::ostream& out) {
  const auto& o = comparison.options;
  out << "# opbench compare\n\n";
  out << "- **base**: " << comparison.base_path << "\n- **new**: " << comparison.new_path << "\n";
  out << fmt::format("- **rule**: slower/faster when the time moves by more than {:.1f}% and "
                     "the Mann-Whitney U test on the repetition medians gives p < {}\n",
                     o.threshold * 100, o.alpha);
  out << "- **times**: each case's " << comparison.estimator
      << " over its repetition medians (run --estimator): host time on the CPU, GPU "
         "time on CUDA (device execution; `timing.measures` says which); cases whose two files "
         "measure different times are `unknown`\n";
  out << "- **memory**: `more memory` / `less memory` when the call's peak or total allocated "
         "bytes move past the tolerance (0 bytes on the CPU, the caching allocator's rounding on "
         "CUDA), on one LibTorch and input seed\n";
  for (const auto& note : comparison.notes)
    out << "- **note**: " << note << "\n";
  out << "\n| case | base | new | ratio | p-value | verdict | memory (peak) |\n";
  out << "|---|---:|---:|---:|---:|---|---|\n";
  for (const auto& c : comparison.cases) {
    std::string verdict = c.verdict == results::Verdict::unknown
                              ? "unknown (" + core::markdown_cell(c.reason) + ")"
                          : c.verdict == results::Verdict::slower ? "**slower**"
                                                                  : core::name_of(c.verdict);
    if (!c.threshold_rule.empty())
      verdict += fmt::format(" (threshold {:.0f}%: {})", c.threshold * 100, c.threshold_rule);
    out << "| `" << core::markdown_code_cell(c.case_id) << "` | "
        << core::format_duration(c.base_time) << " | " << core::format_duration(c.new_time) << " | "
        << (std::isfinite(c.ratio) ? fmt::format("{:.3f}", c.ratio) : "-") << " | "
        << (std::isfinite(c.p_value) ? fmt::format("{:.3g}", c.p_value) : "-") << " | " << verdict
        << " | " << results::markdown_cell(c.memory) << " |\n";
  }
  out << fmt::format(
      "\n**{} slower, {} faster, {} same, {} unknown**; geometric mean of ratios: {}\n",
      comparison.count(results::Verdict::slower), comparison.count(results::Verdict::faster),
      comparison.count(results::Verdict::same), comparison.count(results::Verdict::unknown),
      std::isfinite(comparison.geomean_ratio) ? fmt::format("{:.4f}", comparison.geomean_ratio)
                                              : "-");
  using results::MemoryVerdict;
  out << fmt::format("\n**Memory: {} more, {} less, {} same, {} unknown**\n",
                     comparison.count(MemoryVerdict::more), comparison.count(MemoryVerdict::less),
                     comparison.count(MemoryVerdict::same),
                     comparison.count(MemoryVerdict::unknown));
  // Unknown for a reason of the two runs (not of a case): said once.
  for (const auto& c : comparison.cases) {
    if (c.memory.verdict == MemoryVerdict::unknown && c.memory.base_peak >= 0 &&
        c.memory.new_peak >= 0) {
      out << "\nMemory not compared: " << c.memory.reason << ".\n";
      break;
    }
  }
  const Agreement& a = comparison.agreement;
  if (a.cases > 0) {
    const CaseComparison& worst = comparison.cases[a.worst.front()];
    out << fmt::format(
        "\n## Agreement\n\nOver {} cases, |new/base - 1|: median {:.1f}%, p90 {:.1f}%, "
        "worst ×{:.3f} (`{}`); {} past ×{:.2f} either way.\n\n",
        a.cases, a.median_abs_change * 100, a.p90_abs_change * 100, worst.ratio, worst.case_id,
        a.past_far_ratio, Agreement::k_far_ratio);
    out << "| farthest from 1 | base | new | ratio |\n|---|---:|---:|---:|\n";
    for (std::size_t i : a.worst) {
      const CaseComparison& c = comparison.cases[i];
      out << "| `" << core::markdown_code_cell(c.case_id) << "` | "
          << core::format_duration(c.base_time) << " | " << core::format_duration(c.new_time)
          << " | " << fmt::format("{:.3f}", c.ratio) << " |\n";
    }
  }
  if (!comparison.only_in_base.empty()) {
    out << "\nOnly in base (" << comparison.only_in_base.size() << "):\n";
    for (const auto& id : comparison.only_in_base)
      out << "- `" << id << "`\n";
  }
  if (!comparison.only_in_new.empty()) {
    out << "\nOnly in new (" << comparison.only_in_new.size() << "):\n";
    for (const auto& id : comparison.only_in_new)
      out << "- `" << id << "`\n";
  }
}

} // namespace opbench::compare
