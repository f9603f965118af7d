#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "opbench/stats/change_points.hpp"

namespace opbench::stats {
namespace {

// `n` nights around `level` with log-normal noise of sd `sd`, from a fixed seed.
std::vector<double> nights(std::size_t n, double level, double sd, std::mt19937_64& random) {
  std::normal_distribution<double> noise(0.0, sd);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(level * std::exp(noise(random)));
  return out;
}

std::vector<double> join(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

} // namespace

TEST(ChangePoints, AStepHeldForSixNightsIsFoundWhereItStarts) {
  std::mt19937_64 random(7);
  const auto series = join(nights(20, 1.0, 0.01, random), nights(6, 1.10, 0.01, random));
  const auto found = change_points(series);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 20u);
  EXPECT_NEAR(found[0].after / found[0].before, 1.10, 0.02);
  EXPECT_LT(found[0].p_value, 0.01);
}

TEST(ChangePoints, FiveNightsAtANewLevelAreNotYetAChange) {
  std::mt19937_64 random(7);
  const auto series = join(nights(20, 1.0, 0.01, random), nights(5, 1.10, 0.01, random));
  EXPECT_TRUE(change_points(series).empty());
}

TEST(ChangePoints, OneWildNightIsNotAChange) {
  std::mt19937_64 random(11);
  auto series = nights(30, 1.0, 0.01, random);
  series[15] *= 2.0;
  series[16] *= 0.5;
  EXPECT_TRUE(change_points(series).empty());
}

TEST(ChangePoints, TwoStepsGiveTwoChangesWithTheLevelsBetweenThem) {
  std::mt19937_64 random(3);
  const auto series = join(join(nights(12, 1.0, 0.01, random), nights(12, 1.2, 0.01, random)),
                           nights(12, 0.9, 0.01, random));
  const auto found = change_points(series);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 12u);
  EXPECT_EQ(found[1].index, 24u);
  EXPECT_NEAR(found[0].before, 1.0, 0.01);
  EXPECT_NEAR(found[0].after, 1.2, 0.012);
  EXPECT_NEAR(found[1].before, 1.2, 0.012);
  EXPECT_NEAR(found[1].after, 0.9, 0.01);
}

TEST(ChangePoints, AStepUnderTheEffectFloorIsNotAChange) {
  std::mt19937_64 random(5);
  const auto series = join(nights(15, 1.0, 0.001, random), nights(15, 1.02, 0.001, random));
  EXPECT_TRUE(change_points(series).empty()); // clear to the U test, but 2% < the 3% floor
  ChangePointOptions loose;
  loose.effect_floor = 0.01;
  EXPECT_EQ(change_points(series, loose).size(), 1u);
}

// No change at all: over 500 noisy series of 40 nights, the segmentation finds a change in at
// most 1% of them (it finds one in far fewer: the Bonferroni bound is loose for adjacent splits).
TEST(ChangePoints, FlatSeriesRarelyHaveAChange) {
  std::mt19937_64 random(2026);
  int with_change = 0;
  ChangePointOptions options;
  options.effect_floor = 0.0; // the test alone decides
  for (int i = 0; i < 500; ++i)
    with_change += change_points(nights(40, 1.0, 0.05, random), options).empty() ? 0 : 1;
  EXPECT_LE(with_change, 5);
}

TEST(ChangePoints, ShortOrEmptySeriesHaveNone) {
  EXPECT_TRUE(change_points({}).empty());
  EXPECT_TRUE(change_points({1, 1.01, 1.02, 2, 2.01, 2.02, 2.03, 2.04, 2.05, 2.06, 2.07})
                  .empty()); // 11: no 6 + 6 split
  // 12 values, 6 + 6, no overlap: p = 2 / C(12, 6) = 0.0022 for the one split: a change.
  const auto twelve =
      change_points({1, 1.01, 1.02, 1.03, 1.04, 1.05, 2, 2.01, 2.02, 2.03, 2.04, 2.05});
  ASSERT_EQ(twelve.size(), 1u);
  EXPECT_EQ(twelve[0].index, 6u);
  EXPECT_NEAR(twelve[0].p_value, 2.0 / 924, 1e-12);
}

} // namespace opbench::stats
