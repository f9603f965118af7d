// Implementations side by side: export --format variants and the HTML report's section.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "opbench/report/reporter.hpp"
#include "opbench/report/variants_reporter.hpp"
#include "opbench/results/estimate.hpp"
#include "rendered_report.hpp"

namespace opbench::report {
namespace {

using testing_support::render;

TEST(VariantsReporter, SpeedupOverTheBaselineWithItsIntervalAndGeometricMean) {
  results::ResultSet set;
  auto implementation = [&](const std::string& op, const std::string& point, bool baseline,
                            double seconds) {
    results::CaseResult r;
    r.c.dtype = "float32";
    r.c.device = "cpu";
    r.status = results::Status::ok;
    r.c.op = op;
    r.c.case_id = op + point;
    r.c.variant.group = "g";
    r.c.variant.point = point;
    r.c.variant.baseline = baseline;
    r.timing.repetition_medians.clear();
    for (int i = 0; i < 6; ++i)
      r.timing.repetition_medians.push_back(seconds * (1 + 0.01 * i));
    r.estimate = results::estimate_of(r.timing.repetition_medians);
    if (!baseline) {
      r.check = results::OutputCheck{};
      r.check->before = 6;
      r.check->after = 6;
    }
    return r;
  };
  set.cases = {implementation("base", "/a", true, 4e-6), implementation("mine", "/a", false, 2e-6),
               implementation("base", "/b", true, 1e-6), implementation("mine", "/b", false, 2e-6),
               implementation("mine", "/c", false, 1e-6)};
  const auto all = speedups(set);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_NEAR(all[0].speedup, 2.0, 1e-9);
  EXPECT_LT(all[0].low, 2.0);
  EXPECT_GT(all[0].high, 2.0);
  EXPECT_GT(all[0].low, 1.8); // 6 and 6 repetitions 5% apart bound it closely
  EXPECT_NEAR(all[1].speedup, 0.5, 1e-9);
  EXPECT_EQ(all[2].note, "baseline not run");
  const auto means = mean_speedups(all);
  ASSERT_EQ(means.size(), 1u);
  EXPECT_NEAR(means[0].geometric_mean, 1.0, 1e-9); // x2 and x0.5
  EXPECT_EQ(means[0].points, 2u);
  const std::string md = render("variants", set);
  EXPECT_NE(md.find("| g | `base/a` | 4.02 us | `mine/a` | 2.01 us | passed, 6 before and 6 after "
                    "timing (worst 0 of the tolerance) | x2.000 [1.943, 2.059] |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| g | mine | 2 | x1.000 |"), std::string::npos) << md;
  EXPECT_NE(render("html", set).find("id=\"variants\""), std::string::npos);
}

TEST(VariantsReporter, NoSpeedupForAnImplementationNotCheckedFailedOrUnstable) {
  auto make = [](const std::string& op, bool baseline, double seconds) {
    results::CaseResult r;
    r.c.op = op;
    r.c.case_id = op;
    r.c.variant.group = "g|<b>";
    r.c.variant.point = "/p";
    r.c.variant.baseline = baseline;
    for (int i = 0; i < 6; ++i)
      r.timing.repetition_medians.push_back(seconds * (1 + 0.01 * i));
    r.estimate = results::estimate_of(r.timing.repetition_medians);
    return r;
  };
  results::ResultSet set;
  set.cases.push_back(make("base", true, 4e-6));
  set.cases.push_back(make("unchecked", false, 1e-6)); // no record: nothing says it was checked
  auto failed = make("failed", false, 1e-6);
  failed.check = results::OutputCheck{};
  failed.check->before = 6;
  failed.check->after = 6;
  failed.check->failed = "after its timed blocks: its outputs differ (|d| <= 1e-05)";
  set.cases.push_back(failed);
  auto baseline_broke = make("lonely", false, 1e-6);
  baseline_broke.check = results::OutputCheck{};
  baseline_broke.check->not_made = "the baseline base failed: boom";
  set.cases.push_back(baseline_broke);
  auto unstable = make("unstable", false, 1e-6);
  unstable.check = results::OutputCheck{};
  unstable.check->before = 6;
  unstable.estimate.unstable = true;
  set.cases.push_back(unstable);
  auto crashed = make("crashed", false, 1e-6);
  crashed.status = results::Status::error;
  crashed.message = "SIGSEGV in the timed blocks, repetition 2 of 6";
  set.cases.push_back(crashed);
  const auto all = speedups(set);
  ASSERT_EQ(all.size(), 5u);
  for (const auto& s : all)
    EXPECT_TRUE(std::isnan(s.speedup)) << s.case_id;
  EXPECT_EQ(all[0].note, "not checked against the baseline");
  EXPECT_EQ(all[1].note, "failed its check: after its timed blocks: its outputs differ (|d| <= "
                         "1e-05)");
  EXPECT_EQ(all[2].note, "not checked: the baseline base failed: boom");
  EXPECT_EQ(all[3].note.rfind("UNSTABLE", 0), 0u) << all[3].note;
  EXPECT_EQ(all[4].note, "error: SIGSEGV in the timed blocks, repetition 2 of 6");
  EXPECT_TRUE(mean_speedups(all).empty());
  // A cell keeps the table whole: pipes escaped, HTML shown as text.
  const std::string md = render("variants", set);
  EXPECT_NE(md.find("| g\\|&lt;b&gt; |"), std::string::npos) << md;
  EXPECT_NE(md.find("(\\|d\\| &lt;= 1e-05)"), std::string::npos) << md;
}

TEST(VariantsReporter, ThePointAndItsIntervalComeFromOneStatistic) {
  auto make = [](const std::string& op, bool baseline, std::vector<double> medians) {
    results::CaseResult r;
    r.c.op = op;
    r.c.case_id = op;
    r.c.variant.group = "g";
    r.c.variant.point = "/p";
    r.c.variant.baseline = baseline;
    r.timing.repetition_medians = std::move(medians);
    r.estimate = results::estimate_of(r.timing.repetition_medians);
    r.check = results::OutputCheck{};
    r.check->before = 6;
    return r;
  };
  results::ResultSet set;
  // Skewed repetitions: the fastest third and the Hodges-Lehmann shift disagree.
  set.cases.push_back(make("base", true, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}));
  set.cases.push_back(make("mine", false, {0.10, 0.11, 0.20, 0.21, 0.22, 0.23}));
  const auto all = speedups(set);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_LE(all[0].low, all[0].speedup);
  EXPECT_GE(all[0].high, all[0].speedup);
  // The median of the pairwise log ratios: the median of 1/medians, about x4.88.
  EXPECT_NEAR(all[0].speedup, 2.0 / (0.20 + 0.21), 0.2);
}

} // namespace
} // namespace opbench::report
