#include <gtest/gtest.h>
#include <sqlite3.h>

#include "opbench/core/error.hpp"
#include "opbench/history/history.hpp"
#include "temp_dir.hpp"

namespace opbench::history {
namespace {

results::ResultSet night(const std::string& date, double add_median, bool mm_ok = true) {
  results::ResultSet set;
  set.context = {{"date", date}, {"host", "h"}, {"command_line", "opbench run"}, {"libtorch_version", "2.15.0"}};
  results::CaseResult add;
  add.c.case_id = "add";
  add.timing.repetition_medians = {add_median * 0.99, add_median, add_median * 1.01};
  add.estimate = results::estimate_of(add.timing.repetition_medians, "median");
  results::CaseResult mm = add;
  mm.c.case_id = "mm";
  if (!mm_ok) mm.status = "error";
  set.cases = {add, mm};
  return set;
}

TEST(History, AddIsIdempotentAndSeriesComeOldestFirst) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  EXPECT_TRUE(db.add(night("2026-11-02T00:00:00Z", 2e-6), "b.json", "").second);
  const auto [first, added] = db.add(night("2026-11-01T00:00:00Z", 1e-6, false), "a.json", "abc123");
  EXPECT_TRUE(added);
  EXPECT_FALSE(db.add(night("2026-11-01T00:00:00Z", 1e-6, false), "a.json", "abc123").second);
  EXPECT_EQ(db.find(night("2026-11-01T00:00:00Z", 5.0)), first);
  EXPECT_EQ(db.find(night("2026-11-09T00:00:00Z", 5.0)), -1);
  db.add(night("2026-11-03T00:00:00Z", 3e-6), "c.json", "");

  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].label, "abc123");
  EXPECT_EQ(runs[1].label, "2.15.0");  // no label: the LibTorch version
  EXPECT_EQ(runs[0].cases, 1u);        // mm failed that night: not stored

  const auto add = db.series("add");
  ASSERT_EQ(add.size(), 3u);
  EXPECT_DOUBLE_EQ(add[0].median, 1e-6);
  EXPECT_DOUBLE_EQ(add[2].median, 3e-6);
  EXPECT_EQ(add[1].replicates.size(), 3u);
  EXPECT_EQ(db.series("mm").size(), 2u);
  // The newest 2, oldest first; without a run; before a date.
  const auto last = db.series("add", 2);
  ASSERT_EQ(last.size(), 2u);
  EXPECT_DOUBLE_EQ(last[0].median, 2e-6);
  EXPECT_EQ(db.series("add", 0, first).size(), 2u);
  EXPECT_EQ(db.series("add", 0, -1, "2026-11-03T00:00:00Z").size(), 2u);
  EXPECT_EQ(db.case_ids(), (std::vector<std::string>{"add", "mm"}));

  EXPECT_EQ(db.prune(1), 2u);
  EXPECT_EQ(db.series("add").size(), 1u);  // the measurements went with their runs
}

TEST(History, ASeriesHoldsOnlyValuesThatTimeTheSameThing) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  auto with = [](results::ResultSet set, const std::string& measures) {
    for (auto& r : set.cases) r.timing.measures = measures;
    return set;
  };
  db.add(with(night("2026-11-01T00:00:00Z", 8e-6), "batch"), "a.json", "");
  db.add(with(night("2026-11-02T00:00:00Z", 1e-6), "gpu"), "b.json", "");
  db.add(with(night("2026-11-03T00:00:00Z", 1.1e-6), "gpu"), "c.json", "");
  EXPECT_EQ(db.series("add").size(), 3u);
  const auto gpu = db.series("add", 0, -1, "", "gpu");
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_DOUBLE_EQ(gpu[0].median, 1e-6);
  EXPECT_EQ(db.series("add", 0, -1, "", "batch").size(), 1u);
  EXPECT_EQ(db.series("add", 0, -1, "", "host").size(), 0u);
}

TEST(History, AVersionOneHistoryGetsWhatItsValuesTime) {
  testing::TempDir dir;
  const std::string path = dir.file("old.sqlite");
  {
    sqlite3* old = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &old), SQLITE_OK);
    const char* v1 = R"sql(
      CREATE TABLE runs (id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, date TEXT NOT NULL,
        label TEXT NOT NULL, host TEXT NOT NULL, source TEXT NOT NULL, context TEXT NOT NULL);
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, median REAL NOT NULL, replicates TEXT NOT NULL, PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k', '2026-11-01T00:00:00Z', 'old', 'h', 'a.json', '{}');
      INSERT INTO measurements VALUES (1, 'add/self=1/float32/cpu/t2/forward', 1e-6, '[1e-6]');
      INSERT INTO measurements VALUES (1, 'add/self=1/float32/cuda:0/t1/forward', 8e-6, '[8e-6]');
      PRAGMA user_version = 1;)sql";
    ASSERT_EQ(sqlite3_exec(old, v1, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(old);
  }
  const History db(path);
  EXPECT_EQ(db.series("add/self=1/float32/cpu/t2/forward", 0, -1, "", "host").size(), 1u);
  // A CUDA value from before GPU time: never part of a GPU-time (or any named) series.
  EXPECT_EQ(db.series("add/self=1/float32/cuda:0/t1/forward", 0, -1, "", "gpu").size(), 0u);
  EXPECT_EQ(db.series("add/self=1/float32/cuda:0/t1/forward").size(), 1u);
  EXPECT_EQ(db.runs().size(), 1u);
}

TEST(History, NotAHistoryAndNoDate) {
  testing::TempDir dir;
  const std::string junk = dir.write("junk.sqlite", "this is not a database, just text that is long enough");
  EXPECT_THROW(History{junk}, ResultsError);
  History db(dir.file("ok.sqlite"));
  results::ResultSet undated;
  EXPECT_THROW(db.add(undated, "x.json", ""), ResultsError);
}

}  // namespace
}  // namespace opbench::history
