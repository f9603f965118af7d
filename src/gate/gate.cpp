#include "opbench/gate/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "opbench/results/estimate.hpp"
#include "opbench/stats/change_points.hpp"
#include "opbench/stats/distributions.hpp"
#include "opbench/stats/mann_whitney.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::gate {
namespace {

using stats::k_nan;

// Log values, the baseline (median) and the noise of a history: the larger of two estimates of
// the sd that agree on normal data, 1.4826 MAD and (q90 - q10) / 2.563. MAD alone ignores a
// minority mode (a case that runs 2x slower on one night in five, seen on shared machines): the
// quantile range sees it, so such a case is noisy (a large MDE, maybe blind), not a false alarm.
struct Reference {
  double log_baseline = k_nan;
  double sd = k_nan;
  double log_low = k_nan; // the fastest and slowest night of the window
  double log_high = k_nan;
  std::size_t n = 0;
  std::size_t change_nights = 0; // the window's last change point was this many nights ago; 0: none
  double change_ratio = k_nan;   // the level after it / the level before it
};

// Beyond every night of the window, on the side of `log_value`'s move.
bool outside(double log_value, const Reference& r) {
  return log_value > r.log_high || log_value < r.log_low;
}

Reference reference_of(const std::vector<double>& history, const GateOptions& options) {
  std::vector<double> window;
  const std::size_t first = history.size() > options.window ? history.size() - options.window : 0;
  for (std::size_t i = first; i < history.size(); ++i) {
    if (history[i] > 0 && std::isfinite(history[i]))
      window.push_back(history[i]);
  }
  Reference r;
  // A level that changed inside the window and held since for min_history nights or more is the
  // reference: the nights before it would widen the noise (the window would hold two levels) and
  // pull the baseline towards a level that is gone.
  stats::ChangePointOptions segmenting;
  segmenting.min_segment = options.change_segment;
  segmenting.alpha = options.change_alpha;
  segmenting.effect_floor = options.effect_floor;
  const auto changes = stats::change_points(window, segmenting);
  if (!changes.empty()) {
    const auto& last = changes.back();
    r.change_nights = window.size() - last.index;
    r.change_ratio = last.after / last.before;
    if (r.change_nights >= options.min_history) {
      window.erase(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(last.index));
    }
  }
  std::vector<double> logs;
  for (double v : window)
    logs.push_back(std::log(v));
  r.n = logs.size();
  if (logs.empty())
    return r;
  r.log_baseline = stats::median(logs);
  r.log_low = *std::min_element(logs.begin(), logs.end());
  r.log_high = *std::max_element(logs.begin(), logs.end());
  r.sd = std::max(options.noise_floor, robust_log_sd(window));
  return r;
}

// t statistic and two-sided p of a log value against a reference: one night's, or the mean of
// `values` independent nights' logs (its variance 1/values of a night's).
std::pair<double, double> test(double log_value, const Reference& r, double values = 1) {
  const double scale = r.sd * std::sqrt(1.0 / values + 1.0 / static_cast<double>(r.n));
  const double t = (log_value - r.log_baseline) / scale;
  return {t, stats::two_sided_t_p(t, static_cast<double>(r.n - 1))};
}

// The reference a case was judged against, rebuilt from its baseline, noise, nights and range.
Reference reference_of(const GateCase& c) {
  Reference r;
  r.log_baseline = std::log(c.baseline);
  r.sd = c.noise;
  r.n = c.nights;
  r.log_low = std::log(c.low);
  r.log_high = std::log(c.high);
  return r;
}

// The MDE of the two-look rule in units of the noise s, for n nights: the move d/s caught with
// probability `power` when tonight's value must pass the look level (t(1 - look_alpha/2), scale
// s sqrt(1 + 1/n)) and the mean of both values the candidate level (t(1 - alpha/2), scale
// s sqrt(1/2 + 1/n)). Normal values with the t test's thresholds; both conditions on the slower
// side. P(d) = integral over z1 > A of phi(z1) Q(B - z1), A = a sqrt(1 + 1/n) - d/s,
// B = 2 b sqrt(1/2 + 1/n) - 2 d/s; solved for d/s by bisection. It depends on n alone.
double two_look_mde_factor(std::size_t n, const GateOptions& o) {
  const double df = static_cast<double>(n - 1);
  const double inv_n = 1.0 / static_cast<double>(n);
  const double a =
      stats::student_t_quantile(1.0 - o.look_level() / 2.0, df) * std::sqrt(1.0 + inv_n);
  const double b =
      stats::student_t_quantile(1.0 - o.alpha / 2.0, df) * 2.0 * std::sqrt(0.5 + inv_n);
  auto upper = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }; // Q(z) = P(Z > z)
  auto power = [&](double k) {
    const double from = std::max(a - k, -9.0), to = 9.0;
    if (from >= to)
      return 0.0;
    const int steps = 600; // Simpson's rule
    const double h = (to - from) / steps;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
      const double z = from + h * i;
      const double f = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI) * upper(b - 2.0 * k - z);
      sum += f * (i == 0 || i == steps ? 1 : i % 2 == 1 ? 4 : 2);
    }
    return sum * h / 3.0;
  };
  double low = 0, high = 50;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (low + high);
    (power(mid) < o.power ? low : high) = mid;
  }
  return high;
}

std::string candidate_reason(double ratio) {
  return fmt::format("candidate: {} x{:.3f}, not confirmed", ratio > 1 ? "slower" : "faster",
                     ratio);
}

// The word for a case the gate tested and found no candidate: `same`, unless it is blind, whose
// `same` would claim more than one night can see: then `unknown`, saying what it could have seen.
void unmoved(GateCase& c, const std::string& why) {
  if (c.blind) {
    c.verdict = results::Verdict::unknown;
    c.reason = fmt::format("blind: a change under {:.0f}% goes unseen (MDE){}", c.mde * 100,
                           why.empty() ? "" : "; " + why);
  } else {
    c.verdict = results::Verdict::same;
    c.reason = why;
  }
}

// A candidate until something confirms it: `unknown`, never `same`.
void undecided(GateCase& c, const std::string& why) {
  c.verdict = results::Verdict::unknown;
  c.reason = why;
}

bool past_floor(double ratio, double floor) {
  return std::abs(ratio - 1.0) >= floor;
}

} // namespace

double robust_log_sd(const std::vector<double>& values) {
  std::vector<double> logs;
  for (double v : values) {
    if (v > 0 && std::isfinite(v))
      logs.push_back(std::log(v));
  }
  if (logs.empty())
    return k_nan;
  const double center = stats::median(logs);
  std::vector<double> deviations;
  for (double x : logs)
    deviations.push_back(std::abs(x - center));
  const double range = (stats::percentile(logs, 0.9) - stats::percentile(logs, 0.1)) / 2.563;
  return std::max(1.4826 * stats::median(deviations), range);
}

std::size_t GateResult::candidates() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.candidate; }));
}

std::size_t GateResult::second_looks() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.second_look; }));
}

std::size_t GateResult::called_otherwise() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.called_otherwise; }));
}

std::size_t GateResult::blind() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.blind; }));
}

GateResult judge(const std::vector<GateInput>& inputs, const GateOptions& options) {
  GateResult out;
  out.options = options;
  // t(1 - alpha/2) + t(power) for the MDE depends on the degrees of freedom only.
  std::map<std::size_t, double> mde_quantiles;
  auto mde_quantile = [&](std::size_t df) {
    auto it = mde_quantiles.find(df);
    if (it == mde_quantiles.end()) {
      const double d = static_cast<double>(df);
      it = mde_quantiles
               .emplace(df, stats::student_t_quantile(1.0 - options.alpha / 2.0, d) +
                                stats::student_t_quantile(options.power, d))
               .first;
    }
    return it->second;
  };
  for (const auto& in : inputs) {
    GateCase c;
    c.case_id = in.case_id;
    c.memory = in.memory;
    c.accepted = in.accepted;
    c.held_out = in.held_out;
    c.failed = in.failed;
    c.floor = in.effect_floor.value_or(options.effect_floor);
    c.floor_rule = in.floor_rule;
    c.device_moved = in.device_moved;
    c.baseline = c.noise = c.tonight = c.ratio = c.t = c.p_value = c.mde = c.low = c.high =
        c.change_ratio = k_nan;
    c.confirm_ratio = c.confirm_p = c.second = c.look_ratio = c.look_p = k_nan;
    GateOptions own = options; // the case's floor (a threshold rule) segments its window too
    own.effect_floor = c.floor;
    const Reference r = reference_of(in.history, own);
    c.nights = r.n;
    c.change_nights = r.change_nights;
    c.change_ratio = r.change_ratio;
    if (r.n > 0) {
      c.baseline = std::exp(r.log_baseline);
      c.noise = r.sd;
      c.low = std::exp(r.log_low);
      c.high = std::exp(r.log_high);
    }
    if (r.n >= 2) {
      const double scale = r.sd * std::sqrt(1.0 + 1.0 / static_cast<double>(r.n));
      const double z = mde_quantile(r.n - 1);
      c.mde = std::max(c.floor, std::exp(z * scale) - 1.0);
      c.blind = c.mde > options.blind_above;
    }
    if (in.tonight && *in.tonight > 0 && std::isfinite(*in.tonight))
      c.tonight = *in.tonight;
    if (std::isnan(c.tonight)) {
      c.verdict = results::Verdict::unknown;
      c.reason = in.failed.empty() ? "no value tonight" : "failed tonight: " + in.failed;
    } else if (r.n < options.min_history) {
      c.verdict = results::Verdict::unknown;
      c.reason = "history has " + std::to_string(r.n) + " night(s), " +
                 std::to_string(options.min_history) + " needed";
      if (!in.left_out.empty()) {
        c.reason += "; " + in.left_out;
        c.called_otherwise = true;
      }
      c.ratio = r.n > 0 ? c.tonight / c.baseline : k_nan;
    } else if (in.unstable) {
      c.verdict = results::Verdict::unknown;
      c.reason = fmt::format("unstable tonight: its repetition medians are over {}x apart",
                             results::k_unstable_ratio);
      c.ratio = c.tonight / c.baseline;
    } else {
      c.ratio = c.tonight / c.baseline;
      std::tie(c.t, c.p_value) = test(std::log(c.tonight), r);
      // The t test assumes normal nights; real ones have heavy tails (a repetition or two in a
      // slow spell moves a night's median now and then), so a candidate must also lie beyond
      // every night of the window: for a night like the others that has chance 2/(n + 1),
      // whatever the tail.
      c.candidate = c.p_value < options.alpha && past_floor(c.ratio, c.floor) &&
                    outside(std::log(c.tonight), r);
      c.second_look = c.p_value < options.look_level();
      if (c.candidate)
        undecided(c, candidate_reason(c.ratio));
      else
        unmoved(c, "");
    }
    out.cases.push_back(std::move(c));
  }
  return out;
}

void second_look(GateResult& result, const std::vector<std::string>& ids,
                 const std::vector<double>& values) {
  result.looked = true;
  const GateOptions& o = result.options;
  std::map<std::size_t, double> factors; // two_look_mde_factor per number of nights
  for (auto& c : result.cases) {
    // Tonight's rule has two looks: the MDE of every case is that rule's.
    if (c.nights >= 2 && std::isfinite(c.noise)) {
      auto it = factors.find(c.nights);
      if (it == factors.end())
        it = factors.emplace(c.nights, two_look_mde_factor(c.nights, o)).first;
      c.mde = std::max(c.floor, std::exp(it->second * c.noise) - 1.0);
      c.blind = c.mde > o.blind_above;
    }
    if (!c.second_look) {
      // (its MDE moved with the rule: blind or not again)
      if (std::isfinite(c.p_value) && !c.candidate)
        unmoved(c, "");
      continue;
    }
    const auto it = std::find(ids.begin(), ids.end(), c.case_id);
    const double value =
        it == ids.end() ? k_nan : values[static_cast<std::size_t>(it - ids.begin())];
    if (!(value > 0) || !std::isfinite(value)) {
      if (c.candidate)
        undecided(c,
                  candidate_reason(c.ratio) + " (no second look: judged on tonight's value alone)");
      else
        unmoved(c, "no second look");
      continue;
    }
    const Reference r = reference_of(c);
    const double log_mean = (std::log(c.tonight) + std::log(value)) / 2;
    c.second = value;
    c.look_ratio = std::exp(log_mean - r.log_baseline);
    c.look_p = test(log_mean, r, 2).second;
    c.candidate = c.look_p < o.alpha && past_floor(c.look_ratio, c.floor) && outside(log_mean, r);
    if (c.candidate)
      undecided(c, candidate_reason(c.look_ratio));
    else
      unmoved(c, "not a candidate after a second look");
  }
}

void confirm(GateResult& result, const std::vector<std::string>& ids,
             const std::vector<double>& again) {
  result.confirmed = true;
  std::vector<GateCase*> candidates;
  std::vector<double> p_values;
  std::vector<bool> beyond_window;
  for (auto& c : result.cases) {
    if (!c.candidate)
      continue;
    const auto it = std::find(ids.begin(), ids.end(), c.case_id);
    if (it == ids.end() || !(again[static_cast<std::size_t>(it - ids.begin())] > 0)) {
      undecided(c, candidate_reason(c.judged_ratio()) + ": not measured again");
      continue;
    }
    const Reference r = reference_of(c);
    const double value = again[static_cast<std::size_t>(it - ids.begin())];
    c.confirm_ratio = value / c.baseline;
    c.confirm_p = test(std::log(value), r).second;
    candidates.push_back(&c);
    p_values.push_back(c.confirm_p);
    beyond_window.push_back(outside(std::log(value), r));
  }
  const std::vector<bool> significant =
      stats::benjamini_hochberg(p_values, result.options.confirm_fdr);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    GateCase& c = *candidates[i];
    const bool same_direction = (c.confirm_ratio > 1) == (c.judged_ratio() > 1);
    if (significant[i] && same_direction && past_floor(c.confirm_ratio, c.floor) &&
        beyond_window[i]) {
      c.verdict = c.judged_ratio() > 1 ? results::Verdict::slower : results::Verdict::faster;
      c.reason = "confirmed";
    } else {
      unmoved(c, "not confirmed");
    }
  }
}

void confirm_ab(GateResult& result, const std::vector<ab::PairedCase>& paired) {
  result.confirmed = true;
  result.ab = true;
  std::vector<GateCase*> candidates;
  std::vector<ab::PairedCase> judged;
  for (auto& c : result.cases) {
    if (!c.candidate)
      continue;
    const auto it = std::find_if(paired.begin(), paired.end(),
                                 [&](const ab::PairedCase& p) { return p.case_id == c.case_id; });
    if (it == paired.end()) {
      undecided(c, candidate_reason(c.judged_ratio()) + ": not measured A/B");
      continue;
    }
    candidates.push_back(&c);
    judged.push_back(*it);
  }
  ab::PairedOptions options;
  options.threshold = 0; // any change; the floor is the gate's own, per case
  options.fdr = result.options.confirm_fdr;
  ab::judge_paired(judged, options);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    GateCase& c = *candidates[i];
    const ab::PairedCase& p = judged[i];
    c.confirm_ratio = p.ratio;
    c.confirm_p = p.p_value;
    if (p.pairs < options.min_rounds) {
      undecided(c, fmt::format("{}: A/B has {} paired round(s), too few to decide",
                               candidate_reason(c.judged_ratio()), p.pairs));
      continue;
    }
    const bool moved =
        p.verdict == results::Verdict::slower || p.verdict == results::Verdict::faster;
    const bool same_direction = (p.ratio > 1) == (c.judged_ratio() > 1);
    const std::string rounds = fmt::format("x{:.3f} over {} rounds", p.ratio, p.pairs);
    if (moved && same_direction && past_floor(p.ratio, c.floor)) {
      c.verdict = c.judged_ratio() > 1 ? results::Verdict::slower : results::Verdict::faster;
      c.reason = "confirmed A/B against the previous build (" + rounds + ")";
    } else {
      unmoved(c, "not confirmed A/B against the previous build (" + rounds + ")");
    }
  }
}

void hold_device_moves(GateResult& result) {
  if (result.ab)
    return;
  for (auto& c : result.cases) {
    const bool moved =
        c.verdict == results::Verdict::slower || c.verdict == results::Verdict::faster;
    if (c.device_moved.empty() || !(moved || c.candidate))
      continue;
    c.verdict = results::Verdict::unknown;
    c.reason =
        fmt::format("{} x{:.3f} while the device moved ({}): not a verdict on the code; "
                    "an A/B against the previous build (--confirm-ab) can tell",
                    c.judged_ratio() > 1 ? "slower" : "faster", c.judged_ratio(), c.device_moved);
  }
}

} // namespace opbench::gate
