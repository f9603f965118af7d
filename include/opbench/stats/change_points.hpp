#pragma once
// Change points of a series (one value per night), as a pure function: where its level moved
// and stayed moved. Binary segmentation, the method of Hunter / Apache Otava and of Chromeperf's
// segments, with a rank test so that one wild night can neither make nor hide a change:
//   in a segment of n values, every split leaving at least `min_segment` values on each side is
//   scored with the Mann-Whitney U statistic of the left part against the right one
//   (standardised); the best split is a change point when its two-sided U test p, times the
//   number of splits tried (Bonferroni over the splits), is under `alpha` and the medians of the
//   two parts differ by at least `effect_floor` (relative); then both parts are segmented again.
// A single slow night is never a change point (it is one value of at least `min_segment`). A
// clean step held for `min_segment` nights is one once there are enough nights: 6 after 14 give
// p = 2 / C(20, 6) = 5e-5 (exact test), times 9 splits: 4.6e-4; 8 after 12, 2.5e-4 (normal
// approximation) times 9: 2.3e-3; 6 after 6, 2 / C(12, 6) = 0.0022. Bonferroni over adjacent,
// strongly correlated splits is conservative: on flat series of 40 log-normal values, under 1%
// get a change point (tested).

#include <cstddef>
#include <vector>

namespace opbench::stats {

struct ChangePointOptions {
  std::size_t min_segment = 6; // values on each side of a change, at least
  double alpha = 0.01;         // after Bonferroni over the splits of a segment
  double effect_floor = 0.03;  // |median after / median before - 1|, at least
};

struct ChangePoint {
  std::size_t index = 0; // the first value of the new level
  double before = 0;     // median of the segment before it (up to the previous change point)
  double after = 0;      // median of the segment after it (up to the next change point)
  double p_value = 0;    // the U test's p at the split, times the splits tried (at most 1)
};

// Change points of `values` (any positive unit), sorted by index; `before` and `after` are the
// medians of the final segments on either side.
std::vector<ChangePoint> change_points(const std::vector<double>& values,
                                       const ChangePointOptions& options = {});

} // namespace opbench::stats
