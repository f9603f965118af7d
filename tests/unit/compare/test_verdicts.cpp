// compare's verdict rules on results made up of known repetition medians: `same` only where the
// repetitions could have seen a change of the threshold's size, `unknown` for unstable cases.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opbench/compare/compare.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::compare {
namespace {

// A result of one case "a" from `medians`, each repetition in a process of its own (--isolate).
results::ResultSet side(const std::vector<double>& medians,
                        const std::string& estimator = "median") {
  results::ResultSet set;
  set.context = {{"isolate", true}, {"repetitions", static_cast<int>(medians.size())}};
  results::CaseResult r;
  r.c.case_id = "a";
  r.timing.repetition_medians = medians;
  r.estimate = results::estimate_of(medians, estimator);
  set.cases.push_back(r);
  return set;
}

TEST(Compare, SameOnlyWhereTheRepetitionsCouldHaveSeenAChangeOfTheThreshold) {
  CompareOptions two;
  two.min_replicates = 2;
  const Comparison few = compare_results(side({1.0, 1.2}), side({1.3, 1.4}), two);
  EXPECT_EQ(few.cases.at(0).verdict, results::Verdict::unknown);
  EXPECT_NE(few.cases.at(0).reason.find("its 95% interval [unbounded, unbounded] reaches past the "
                                        "5% threshold (2 and 2 repetitions"),
            std::string::npos)
      << few.cases.at(0).reason;
  EXPECT_TRUE(few.nothing_judged());
  const Comparison tight = compare_results(side({1.00, 1.01, 0.99, 1.005, 0.995, 1.0}),
                                           side({1.0, 1.005, 0.995, 1.01, 0.99, 1.002}), {});
  EXPECT_EQ(tight.cases.at(0).verdict, results::Verdict::same);
  EXPECT_GE(tight.cases.at(0).ratio_low, 0.95);
  EXPECT_LE(tight.cases.at(0).ratio_high, 1.05);
}

TEST(Compare, AnUnstableCaseIsUnknownSayingWhichSide) {
  const auto steady = side({1.00, 1.01, 0.99, 1.005, 0.995, 1.0});
  // Two repetitions of six at over 3x: the fastest third still says 1.0, but which level it took is
  // chance, so the verdict is unknown, not `same`.
  const auto two_levels = side({1.00, 3.0, 0.99, 1.005, 3.1, 1.0});
  const Comparison c = compare_results(steady, two_levels, {});
  EXPECT_EQ(c.cases.at(0).verdict, results::Verdict::unknown);
  EXPECT_EQ(c.cases.at(0).reason,
            "unstable on the new side: its repetition medians are over 3x apart");
  EXPECT_EQ(compare_results(two_levels, two_levels, {}).cases.at(0).reason,
            "unstable on the base and new side: its repetition medians are over 3x apart");
}

TEST(Compare, ACaseStoppedEarlyIsSplitByTheProcessesItRecords) {
  // `run` stopped it after two of three processes (2 + 2 of 6 repetitions): its file says which
  // process measured each median, where the context's split would call them one process.
  auto stopped = [](const std::vector<double>& medians) {
    results::ResultSet set = side(medians, "fastest-third");
    set.context = {{"isolate", false}, {"processes", 3}, {"repetitions", 6}};
    set.cases[0].timing.repetition_processes = {0, 0, 1, 1};
    return set;
  };
  EXPECT_EQ(
      recorded_processes(stopped({1, 2, 3, 4}).context, stopped({1, 2, 3, 4}).cases[0].timing),
      (std::vector<std::vector<double>>{{1, 2}, {3, 4}}));
  const Comparison c =
      compare_results(stopped({1.0, 1.004, 0.998, 1.002}), stopped({1.001, 0.999, 1.003, 1.0}), {});
  EXPECT_EQ(c.cases.at(0).base_processes, 2u);
  EXPECT_EQ(c.cases.at(0).verdict, results::Verdict::same) << c.cases.at(0).reason;
}

} // namespace
} // namespace opbench::compare
