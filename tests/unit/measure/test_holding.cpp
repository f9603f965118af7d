// The hold file: what a measuring process says it holds, read by its supervisor.
#include <gtest/gtest.h>

#include <fstream>

#include "opbench/measure/holding.hpp"
#include "temp_dir.hpp"

namespace opbench::measure {
namespace {

TEST(Holding, TheLastRecordIsReadBackWholeWhateverItsIdHolds) {
  testing::TempDir dir;
  const std::string path = dir.file("hold");
  EXPECT_FALSE(read_hold_file(path)); // no file yet
  open_hold_file(path);
  EXPECT_FALSE(read_hold_file(path)); // opened, holding nothing
  const std::string long_id = std::string(300, 'x') + "\nwith a newline\t and \x1b[31m escapes";
  hold(long_id, 4, Phase::inputs);
  auto held = read_hold_file(path);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->case_id, long_id);
  EXPECT_EQ(held->repetition, 4);
  EXPECT_EQ(held->phase, Phase::inputs);
  const std::uint64_t first = held->serial;
  // A shorter record written over a longer one: the tail past its newline is not read.
  hold("b", 0, Phase::warmup);
  hold_phase(Phase::timed);
  held = read_hold_file(path);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->case_id, "b");
  EXPECT_EQ(held->phase, Phase::timed);
  EXPECT_GT(held->serial, first);
  // The same phase again writes nothing new.
  const std::uint64_t serial = held->serial;
  hold_phase(Phase::timed);
  EXPECT_EQ(read_hold_file(path)->serial, serial);
  release_hold();
  EXPECT_FALSE(read_hold_file(path));
  const auto record = read_hold_record(path);
  ASSERT_TRUE(record);
  EXPECT_TRUE(record->released);
  hold_phase(Phase::memory_probe); // holding nothing: no record
  EXPECT_FALSE(read_hold_file(path));
}

TEST(Holding, AFileThatIsNoRecordHoldsNothing) {
  testing::TempDir dir;
  const std::string path = dir.file("junk");
  std::ofstream(path) << "{\"case\": \"a\", \"repetition\": 1"; // cut short, no newline
  EXPECT_FALSE(read_hold_file(path));
  std::ofstream(path) << "[1, 2]\n";
  EXPECT_FALSE(read_hold_file(path));
  std::ofstream(path)
      << "{\"case\": \"a\", \"repetition\": 1, \"phase\": \"nap\", \"serial\": 1}\n";
  EXPECT_FALSE(read_hold_file(path));
}

TEST(Holding, PhasesHaveWordsForMessages) {
  EXPECT_EQ(describe(Phase::timed), "the timed blocks");
  EXPECT_EQ(describe(Phase::check), "the check of its outputs");
  EXPECT_EQ(core::name_of(Phase::memory_probe), "memory probe");
}

} // namespace
} // namespace opbench::measure
