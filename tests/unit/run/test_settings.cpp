// run/settings.hpp: every numeric setting has one range, and NaN, infinities and values past it
// are refused (#47, defect 8: `--min-time nan` measured forever, `--threads 100000` started 999
// OS threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "opbench/core/error.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {
namespace {

TEST(Settings, TheDefaultsLieInTheirRanges) {
  EXPECT_NO_THROW(check(RunSettings{}));
}

TEST(Settings, NanInfinitiesAndValuesPastTheRangeAreRefusedNamingTheOption) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double bad : {nan, inf, -inf, -1.0, 1e9}) {
    RunSettings s;
    s.exec.measure.min_time = bad;
    try {
      check(s);
      ADD_FAILURE() << "--min-time " << bad << " was taken";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--min-time must be a number from 0 to 3600, got ", 0),
                0u)
          << e.what();
    }
  }
  RunSettings s;
  s.repetitions = 0;
  EXPECT_THROW(check(s), UsageError);
  s = RunSettings{};
  s.exec.measure.block_time = nan;
  EXPECT_THROW(check(s), UsageError);
}

TEST(Settings, TheEstimatedDurationGrowsWithTheWorkAndTheProcesses) {
  RunSettings s; // 6 repetitions over 3 processes, --max-time 0.03
  // 9 cases x 6 repetitions x (0.029 s + 0.47 x 0.03 s of timed blocks), and 3 process starts
  // of 1.5 s: about 6.8 s.
  const double repetition = 0.029 + 0.47 * 0.03;
  EXPECT_NEAR(estimated_seconds(9, s), 9 * 6 * repetition + 3 * 1.5, 1e-9);
  s.processes = 1; // one fresh process, the run supervising it
  EXPECT_NEAR(estimated_seconds(9, s), 9 * 6 * repetition + 1.5, 1e-9);
  s.isolate = true; // a process per repetition
  EXPECT_NEAR(estimated_seconds(9, s), 9 * 6 * (repetition + 1.5), 1e-9);
  s.isolate = false;
  s.exec.measure.min_time = 1; // timed blocks of a second at least: the repetition lasts that
  EXPECT_NEAR(estimated_seconds(2, s), 2 * 6 * (0.029 + 1) + 1.5, 1e-9);
  // The default suite (722 cases): 133-143 s measured; every repetition made, or only the
  // first two processes' (every case known after them).
  s.exec.measure.min_time = 0.01;
  s.processes = 3;
  EXPECT_GT(estimated_seconds(722, s), 143);
  EXPECT_LT(estimated_seconds_at_least(722, s), 133);
}

TEST(Settings, RangesSayWhatTheyTake) {
  EXPECT_EQ(describe(limits::repetitions), "a whole number from 1 to 10000");
  EXPECT_TRUE(in_range(4096, limits::threads));
  EXPECT_FALSE(in_range(4097, limits::threads));
  EXPECT_FALSE(in_range(1.5, limits::threads));
  EXPECT_FALSE(in_range(std::nan(""), limits::target_noise));
}

// A measuring flag newer than an older build goes to a side or child only when set away from its
// default: `opbench ab --base-bin OLDER` must still start the older side.
TEST(Settings, NewerMeasuringFlagsArePassedOnlyWhenSet) {
  RunSettings settings;
  auto has = [](const std::vector<std::string>& args, const std::string& flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  EXPECT_FALSE(has(measuring_args(settings), "--warm-tolerance"));
  EXPECT_TRUE(has(measuring_args(settings), "--max-time"));
  settings.exec.measure.warm_tolerance = 0;
  const std::vector<std::string> args = measuring_args(settings);
  const auto at = std::find(args.begin(), args.end(), "--warm-tolerance");
  ASSERT_NE(at, args.end());
  ASSERT_NE(at + 1, args.end());
  EXPECT_EQ(*(at + 1), "0");
}

} // namespace
} // namespace opbench::run
