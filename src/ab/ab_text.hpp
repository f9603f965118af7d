#pragma once
// The few texts and numbers every view of an A/B file shows alike (ab_views.cpp, ab_html.cpp).

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "opbench/ab/ab.hpp"
#include "opbench/ab/paired.hpp"

namespace opbench::ab {

// A ratio as the views print it ("1.043"), "-" when there is none.
inline std::string ratio_text(double v) {
  return std::isfinite(v) ? fmt::format("{:.3f}", v) : "-";
}

// A case's interval with its level ("[0.981, 1.012] at 95.0%"), "-" when there is none.
inline std::string interval_text(const PairedCase& p) {
  if (!std::isfinite(p.low) || !std::isfinite(p.high))
    return "-";
  return fmt::format("[{:.3f}, {:.3f}] at {:.1f}%", p.low, p.high, p.level * 100);
}

// The geometric mean of a side's round times (the typical round), NaN when none.
inline double typical(const std::vector<double>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : values) {
    if (std::isfinite(v) && v > 0) {
      sum += std::log(v);
      ++n;
    }
  }
  return n == 0 ? std::nan("") : std::exp(sum / static_cast<double>(n));
}

// Why a case is what it is: its verdict's reason, then each side's error, if any.
inline std::string reason_of(const AbCase& c) {
  std::string why = c.paired.reason;
  for (const auto* error : {&c.base_error, &c.new_error}) {
    if (!error->empty())
      why += std::string(why.empty() ? "" : "; ") + (error == &c.base_error ? "base " : "new ") +
             *error;
  }
  return why;
}

} // namespace opbench::ab
