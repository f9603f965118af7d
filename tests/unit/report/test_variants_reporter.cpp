// Implementations side by side: export --format variants and the HTML report's section.
#include <gtest/gtest.h>

#include <sstream>

#include "opbench/report/reporter.hpp"
#include "opbench/report/variants_reporter.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report {
namespace {

std::string render(const std::string& format, const results::ResultSet& set) {
  std::ostringstream out;
  make_reporter(format)->write(set, out);
  return out.str();
}

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
  EXPECT_NE(md.find("| g | `base/a` | 4.02 us | `mine/a` | 2.01 us | x2.000 [1.943, 2.059] |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| g | mine | 2 | x1.000 |"), std::string::npos) << md;
  EXPECT_NE(render("html", set).find("id=\"variants\""), std::string::npos);
}

} // namespace
} // namespace opbench::report
