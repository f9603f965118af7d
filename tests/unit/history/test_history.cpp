#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/history/history.hpp"
#include "opbench/results/estimate.hpp"
#include "temp_dir.hpp"

namespace opbench::history {
namespace {

results::ResultSet night(const std::string& date, double add_median, bool mm_ok = true,
                         const std::string& estimator = "median") {
  results::ResultSet set;
  set.context = {{"date", date},
                 {"host", "h"},
                 {"command_line", "opbench run"},
                 {"libtorch_version", "2.15.0"},
                 {"estimator", estimator}};
  results::CaseResult add;
  add.c.case_id = "add";
  add.timing.repetition_medians = {add_median * 0.99, add_median, add_median * 1.01};
  add.estimate = results::estimate_of(add.timing.repetition_medians, estimator);
  results::CaseResult mm = add;
  mm.c.case_id = "mm";
  if (!mm_ok)
    mm.status = results::Status::error;
  set.cases = {add, mm};
  return set;
}

// A history file written by an older opbench: its `runs` table (the same in versions 1 to 3),
// then `sql` (its measurements and user_version).
std::string old_history(const testing::TempDir& dir, const std::string& name,
                        const std::string& sql) {
  const std::string path = dir.file(name);
  sqlite3* old = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &old), SQLITE_OK);
  const std::string runs = "CREATE TABLE runs (id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, "
                           "date TEXT NOT NULL, label TEXT NOT NULL, "
                           "host TEXT NOT NULL, source TEXT NOT NULL, context TEXT NOT NULL);";
  EXPECT_EQ(sqlite3_exec(old, (runs + sql).c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(old);
  return path;
}

TEST(History, AddIsIdempotentAndSeriesComeOldestFirst) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  EXPECT_TRUE(db.add(night("2026-11-02T00:00:00Z", 2e-6), "b.json", "").second);
  const auto [first, added] =
      db.add(night("2026-11-01T00:00:00Z", 1e-6, false), "a.json", "abc123");
  EXPECT_TRUE(added);
  EXPECT_FALSE(db.add(night("2026-11-01T00:00:00Z", 1e-6, false), "a.json", "abc123").second);
  EXPECT_EQ(db.find(night("2026-11-01T00:00:00Z", 5.0)), first);
  EXPECT_EQ(db.find(night("2026-11-09T00:00:00Z", 5.0)), -1);
  db.add(night("2026-11-03T00:00:00Z", 3e-6), "c.json", "");

  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].label, "abc123");
  EXPECT_EQ(runs[1].label, "2.15.0"); // no label: the LibTorch version
  EXPECT_EQ(runs[0].cases, 1u);       // mm failed that night: not stored

  const auto add = db.series("add");
  ASSERT_EQ(add.size(), 3u);
  EXPECT_DOUBLE_EQ(add[0].time, 1e-6);
  EXPECT_DOUBLE_EQ(add[2].time, 3e-6);
  EXPECT_EQ(add[1].replicates.size(), 3u);
  EXPECT_EQ(db.series("mm").size(), 2u);
  // The newest 2, oldest first; without a run; before a date.
  const auto last = db.series("add", 2);
  ASSERT_EQ(last.size(), 2u);
  EXPECT_DOUBLE_EQ(last[0].time, 2e-6);
  EXPECT_EQ(db.series("add", 0, first).size(), 2u);
  EXPECT_EQ(db.series("add", 0, -1, "2026-11-03T00:00:00Z").size(), 2u);
  EXPECT_EQ(db.case_ids(), (std::vector<std::string>{"add", "mm"}));

  EXPECT_EQ(db.prune(1), 2u);
  EXPECT_EQ(db.series("add").size(), 1u); // the measurements went with their runs
}

TEST(History, ASeriesHoldsOnlyValuesThatTimeTheSameThing) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  auto with = [](results::ResultSet set, const std::string& measures) {
    for (auto& r : set.cases)
      r.timing.measures =
          core::parse_name_or_throw<results::Measures>(measures, "measures", "test");
    return set;
  };
  db.add(with(night("2026-11-01T00:00:00Z", 8e-6), "batch"), "a.json", "");
  db.add(with(night("2026-11-02T00:00:00Z", 1e-6), "gpu"), "b.json", "");
  db.add(with(night("2026-11-03T00:00:00Z", 1.1e-6), "gpu"), "c.json", "");
  EXPECT_EQ(db.series("add").size(), 3u);
  const auto gpu = db.series("add", 0, -1, "", "gpu");
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_DOUBLE_EQ(gpu[0].time, 1e-6);
  EXPECT_EQ(db.series("add", 0, -1, "", "batch").size(), 1u);
  EXPECT_EQ(db.series("add", 0, -1, "", "host").size(), 0u);
}

TEST(History, ASeriesCanHoldOnlyValuesOfCasesCalledTheSameWay) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  auto called = [](results::ResultSet set, const std::string& call_path) {
    for (auto& r : set.cases)
      r.timing.call_path =
          core::parse_name_or_throw<results::CallPath>(call_path, "call path", "test");
    return set;
  };
  db.add(called(night("2026-11-01T00:00:00Z", 2.3e-7), "boxed"), "a.json", "");
  db.add(called(night("2026-11-02T00:00:00Z", 1.6e-7), "typed"), "b.json", "");
  db.add(called(night("2026-11-03T00:00:00Z", 1.7e-7), "typed"), "c.json", "");
  const auto all = db.series("add");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].call_path, "boxed");
  EXPECT_EQ(all[2].call_path, "typed");
  const auto typed = db.series("add", 0, -1, "", "", "typed");
  ASSERT_EQ(typed.size(), 2u);
  EXPECT_DOUBLE_EQ(typed[0].time, 1.6e-7);
  EXPECT_EQ(db.series("add", 0, -1, "", "", "boxed").size(), 1u);
  EXPECT_EQ(db.series("add", 0, -1, "", "", "script").size(), 0u);
  EXPECT_EQ(db.series("add", 0, -1, "", "gpu", "typed").size(), 0u); // both filters hold
  const auto changes = call_path_changes(all);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 1u);
  EXPECT_EQ(changes[0].before, "boxed");
  EXPECT_EQ(changes[0].after, "typed");
}

TEST(History, AVersionThreeHistoryKeepsItsValuesForEveryCallPath) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "v3.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, time REAL NOT NULL, estimator TEXT NOT NULL DEFAULT '', replicates TEXT NOT NULL,
        measures TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k1', '2026-11-01T00:00:00Z', 'a', 'h', 'a.json', '{}');
      INSERT INTO measurements VALUES (1, 'add', 2e-7, 'median', '[2e-7]', 'host');
      PRAGMA user_version = 3;)sql");
  History db(path);
  // Not known how it was called: in the series of either call path.
  ASSERT_EQ(db.series("add", 0, -1, "", "host", "typed").size(), 1u);
  EXPECT_EQ(db.series("add", 0, -1, "", "host", "boxed").size(), 1u);
  EXPECT_EQ(db.series("add")[0].call_path, "");
  auto tonight = night("2026-11-02T00:00:00Z", 1.6e-7);
  for (auto& r : tonight.cases) {
    r.timing.measures = results::Measures::host;
    r.timing.call_path = results::CallPath::typed;
  }
  EXPECT_TRUE(db.add(tonight, "b.json", "").second);
  EXPECT_EQ(db.series("add", 0, -1, "", "host", "typed").size(), 2u);
  EXPECT_EQ(db.series("add", 0, -1, "", "host", "boxed").size(), 1u);
}

TEST(History, KeepsEachNightsMemoryAndSetupFromVersionFiveOn) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "v4.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, time REAL NOT NULL, estimator TEXT NOT NULL DEFAULT '', replicates TEXT NOT NULL,
        measures TEXT NOT NULL DEFAULT '', call_path TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k1', '2026-11-01T00:00:00Z', 'a', 'h', 'a.json', '{"libtorch_version": "2.11.0"}');
      INSERT INTO measurements VALUES (1, 'add', 2e-7, 'median', '[2e-7]', 'host', 'typed');
      PRAGMA user_version = 4;)sql");
  History db(path);
  auto tonight = night("2026-11-02T00:00:00Z", 1e-6);
  tonight.context["libtorch_cuda_compiled"] = true;
  tonight.cases[0].c.seed = 42;
  tonight.cases[0].memory = results::MemoryStats{};
  tonight.cases[0].memory->peak_bytes = 4096;
  tonight.cases[0].memory->total_bytes = 8192;
  tonight.cases[0].memory->allocations = 2;
  ASSERT_TRUE(db.add(tonight, "b.json", "").second);
  const auto series = db.series("add");
  ASSERT_EQ(series.size(), 2u);
  // The night from before version 5 kept its value, with no memory.
  EXPECT_FALSE(series[0].memory.has_value());
  EXPECT_FALSE(series[0].seed.has_value());
  EXPECT_EQ(series[0].setup["libtorch_version"], "2.11.0");
  EXPECT_TRUE(series[0].setup["libtorch_cuda_compiled"].is_null());
  ASSERT_TRUE(series[1].memory.has_value());
  EXPECT_EQ(series[1].memory->peak_bytes, 4096);
  EXPECT_EQ(series[1].memory->total_bytes, 8192);
  EXPECT_EQ(series[1].memory->allocations, 2);
  EXPECT_EQ(series[1].seed, 42u);
  EXPECT_EQ(series[1].setup["libtorch_version"], "2.15.0");
  EXPECT_EQ(series[1].setup["libtorch_cuda_compiled"], true);
  EXPECT_FALSE(db.series("mm")[0].memory.has_value()); // not probed: none
}

TEST(History, KeepsEachNightsDeviceClockFromVersionSevenOn) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "v6.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, time REAL NOT NULL, estimator TEXT NOT NULL DEFAULT '', replicates TEXT NOT NULL,
        measures TEXT NOT NULL DEFAULT '', call_path TEXT NOT NULL DEFAULT '', peak_bytes INTEGER,
        total_bytes INTEGER, allocations INTEGER, seed INTEGER, PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k1', '2026-11-01T00:00:00Z', 'a', 'h', 'a.json', '{}');
      INSERT INTO measurements VALUES (1, 'add', 2e-7, 'median', '[2e-7]', 'gpu', 'typed', NULL, NULL, NULL, 0);
      PRAGMA user_version = 6;)sql");
  History db(path);
  auto tonight = night("2026-11-02T00:00:00Z", 1e-6);
  results::DeviceState busy, idle;
  busy.sm_clock_mhz = 1755;
  idle.sm_clock_mhz = 345;
  idle.reasons = results::clock_reason::gpu_idle;
  tonight.cases[0].timing.repetition_device_state = {{idle, busy}, {busy, busy}, {busy, busy}};
  tonight.cases[0].timing.device_slowed_repetitions = 1;
  ASSERT_TRUE(db.add(tonight, "b.json", "").second);
  const auto series = db.series("add");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_FALSE(series[0].sm_clock_mhz.has_value()); // from before version 7
  EXPECT_EQ(series[0].device_slowed, 0);
  EXPECT_EQ(series[1].sm_clock_mhz, 1755.0); // the lowest under load, not the idle reading
  EXPECT_EQ(series[1].device_slowed, 1);
  EXPECT_FALSE(db.series("mm")[0].sm_clock_mhz.has_value()); // nothing read: none
}

TEST(History, AnAcceptMovesTheNightsBeforeItOntoItsLevelAndIsUndoneWithoutLoss) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  const char* dates[] = {"2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z",
                         "2026-11-04T00:00:00Z", "2026-11-05T00:00:00Z"};
  for (int i = 0; i < 5; ++i)
    db.add(night(dates[i], i < 3 ? 1e-6 : 2e-6), "n.json", "");
  EXPECT_THROW(db.accept("add", -1, "", "now"), UsageError);         // no reason
  EXPECT_THROW(db.accept("nonesuch", -1, "why", "now"), UsageError); // no such case
  EXPECT_THROW(db.accept("add", 99, "why", "now"), UsageError);      // no such run
  const auto runs = db.runs();
  const std::int64_t id = db.accept("add", runs[3].id, "twice the work on purpose", "t1");
  auto series = db.series("add");
  ASSERT_EQ(series.size(), 5u);
  EXPECT_EQ(series[3].accepted, "twice the work on purpose");
  EXPECT_EQ(series[4].accepted, "");
  EXPECT_EQ(db.series("mm")[3].accepted, ""); // another case's series is its own
  const auto moved = on_accepted_level(series);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(moved[i].time, 2e-6) << i; // onto the accepted level
    EXPECT_DOUBLE_EQ(moved[i].moved, 2.0);
  }
  EXPECT_DOUBLE_EQ(moved[4].time, 2e-6);
  EXPECT_DOUBLE_EQ(moved[4].moved, 1.0);

  db.undo_accept(id, "t2");
  EXPECT_THROW(db.undo_accept(id, "t3"), UsageError); // undone before
  EXPECT_THROW(db.undo_accept(id + 1, "t3"), UsageError);
  series = db.series("add");
  EXPECT_EQ(series[3].accepted, "");
  EXPECT_DOUBLE_EQ(on_accepted_level(series)[0].time, 1e-6); // as measured again
  const auto accepts = db.accepts("add");
  ASSERT_EQ(accepts.size(), 1u); // kept, marked undone
  EXPECT_EQ(accepts[0].undone, "t2");
  EXPECT_EQ(accepts[0].run_date, dates[3]);
  // The newest run is the default.
  EXPECT_EQ(db.accepts()[0].id, id);
  const std::int64_t newest = db.accept("add", -1, "again", "t4");
  EXPECT_EQ(db.accepts("add").back().id, newest);
  EXPECT_EQ(db.accepts("add").back().run_id, runs[4].id);
}

TEST(History, ANightHeldOutStaysInTheHistoryMarkedAndAnAcceptTakesItBack) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  std::vector<std::int64_t> runs;
  for (int d = 1; d <= 4; ++d) {
    runs.push_back(
        db.add(night("2026-11-0" + std::to_string(d) + "T00:00:00Z", d >= 3 ? 2e-6 : 1e-6), "n", "")
            .first);
  }
  // The gate held out add's slow nights; a user held out the whole first night.
  const auto gate3 = db.exclude(runs[2], "add", "judged slower", "gate", "2026-11-03T01:00:00Z");
  db.exclude(runs[3], "add", "judged slower", "gate", "2026-11-04T01:00:00Z");
  const auto user = db.exclude(runs[0], "", "a noisy machine", "user", "2026-11-05T00:00:00Z");
  EXPECT_EQ(db.exclude(runs[2], "add", "again", "gate", "x"), gate3); // held out once
  auto add = db.series("add");
  ASSERT_EQ(add.size(), 4u); // kept, marked
  EXPECT_EQ(add[0].excluded, "a noisy machine");
  EXPECT_EQ(add[1].excluded, "");
  EXPECT_EQ(add[2].excluded, "judged slower");
  EXPECT_EQ(db.series("mm")[2].excluded, ""); // another case's value of that night is not
  EXPECT_EQ(db.series("mm")[0].excluded, "a noisy machine");
  EXPECT_EQ(db.exclusions("add").size(), 3u);
  EXPECT_EQ(db.exclusions("mm").size(), 1u); // the whole night
  // Accepting add's step from night 3 takes the gate's exclusions of it back (they are its new
  // level), not the user's.
  db.accept("add", runs[2], "intended", "2026-11-06T00:00:00Z");
  add = db.series("add");
  EXPECT_EQ(add[2].excluded, "");
  EXPECT_EQ(add[3].excluded, "");
  EXPECT_EQ(add[0].excluded, "a noisy machine");
  db.include(user, "2026-11-07T00:00:00Z");
  EXPECT_EQ(db.series("add")[0].excluded, "");
  EXPECT_THROW(db.include(user, "again"), UsageError);
  EXPECT_THROW(db.include(999, "x"), UsageError);
  EXPECT_THROW(db.exclude(999, "", "no such run", "user", "x"), UsageError);
  EXPECT_THROW(db.exclude(runs[0], "nope", "no such case", "user", "x"), UsageError);
}

TEST(History, AReasonIsOneLineOfText) {
  EXPECT_EQ(checked_reason("  fixed in abc123 ", "x"), "fixed in abc123");
  EXPECT_THROW(checked_reason("   ", "x"), UsageError);
  EXPECT_THROW(checked_reason("two\nlines", "x"), UsageError);
  EXPECT_THROW(checked_reason("an \x1b[31m escape", "x"), UsageError);
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  db.add(night("2026-11-01T00:00:00Z", 1e-6), "n", "");
  EXPECT_THROW(db.accept("add", -1, " ", "d"), UsageError);
  EXPECT_THROW(db.accept("add", 0, "why", "d"), UsageError);
  EXPECT_THROW(db.accept("add", -5, "why", "d"), UsageError);
}

TEST(History, ProcessesOpeningAnOlderHistoryAtOnceUpgradeItOnce) {
  // Shards of one night may add their results to one history at the same moment: each opens it,
  // and only one may upgrade it (the others must see it upgraded, not add the column again).
  for (int round = 0; round < 5; ++round) {
    testing::TempDir dir;
    const std::string path = old_history(dir, "v3.sqlite", R"sql(
        CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          case_id TEXT NOT NULL, time REAL NOT NULL, estimator TEXT NOT NULL DEFAULT '', replicates TEXT NOT NULL,
          measures TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, case_id));
        PRAGMA user_version = 3;)sql");
    std::vector<std::thread> openers;
    std::atomic<int> failed{0};
    for (int i = 0; i < 4; ++i) {
      openers.emplace_back([&] {
        try {
          History db(path);
        } catch (const std::exception& e) {
          ++failed;
          ADD_FAILURE() << e.what();
        }
      });
    }
    for (auto& t : openers)
      t.join();
    EXPECT_EQ(failed.load(), 0) << "round " << round;
    // And adding one night from several processes at once stores it once.
    std::vector<std::thread> adders;
    std::atomic<int> added{0};
    for (int i = 0; i < 4; ++i) {
      adders.emplace_back([&] {
        try {
          History db(path);
          if (db.add(night("2026-11-05T00:00:00Z", 1e-6), "n.json", "").second)
            ++added;
        } catch (const std::exception& e) {
          ++failed;
          ADD_FAILURE() << e.what();
        }
      });
    }
    for (auto& t : adders)
      t.join();
    EXPECT_EQ(failed.load(), 0) << "round " << round;
    EXPECT_EQ(added.load(), 1) << "round " << round;
    EXPECT_EQ(History(path).runs().size(), 1u);
  }
}

TEST(History, AVersionOneHistoryGetsWhatItsValuesTime) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "old.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, median REAL NOT NULL, replicates TEXT NOT NULL, PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k', '2026-11-01T00:00:00Z', 'old', 'h', 'a.json', '{}');
      INSERT INTO measurements VALUES (1, 'add/self=1/float32/cpu/t2/forward', 1e-6, '[1e-6]');
      INSERT INTO measurements VALUES (1, 'add/self=1/float32/cuda:0/t1/forward', 8e-6, '[8e-6]');
      PRAGMA user_version = 1;)sql");
  const History db(path);
  EXPECT_EQ(db.series("add/self=1/float32/cpu/t2/forward", 0, -1, "", "host").size(), 1u);
  // A CUDA value from before GPU time: never part of a GPU-time (or any named) series.
  EXPECT_EQ(db.series("add/self=1/float32/cuda:0/t1/forward", 0, -1, "", "gpu").size(), 0u);
  EXPECT_EQ(db.series("add/self=1/float32/cuda:0/t1/forward").size(), 1u);
  EXPECT_EQ(db.runs().size(), 1u);
  // And on to version 3: the value is the run's time, made by `median` (a context without one).
  const auto points = db.series("add/self=1/float32/cpu/t2/forward");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_DOUBLE_EQ(points[0].time, 1e-6);
  EXPECT_EQ(points[0].estimator, "median");
}

TEST(History, AVersionTwoHistoryNamesItsValuesTimesAndKeepsTheirEstimators) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "v2.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, median REAL NOT NULL, replicates TEXT NOT NULL,
        measures TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, case_id));
      INSERT INTO runs VALUES (1, 'k1', '2026-11-01T00:00:00Z', 'a', 'h', 'a.json', '{"estimator": "min"}');
      INSERT INTO runs VALUES (2, 'k2', '2026-11-02T00:00:00Z', 'b', 'h', 'b.json', '{"date": "x"}');
      INSERT INTO runs VALUES (3, 'k3', '2026-11-03T00:00:00Z', 'c', 'h', 'c.json', 'not json');
      INSERT INTO measurements VALUES (1, 'add', 1e-6, '[1e-6, 2e-6, 3e-6]', 'host');
      INSERT INTO measurements VALUES (2, 'add', 2e-6, '[2e-6]', 'host');
      INSERT INTO measurements VALUES (3, 'add', 3e-6, '[3e-6]', 'host');
      PRAGMA user_version = 2;)sql");
  {
    History db(path);
    const auto add = db.series("add");
    ASSERT_EQ(add.size(), 3u);
    EXPECT_DOUBLE_EQ(add[0].time, 1e-6);
    EXPECT_EQ(add[0].estimator, "min");    // its run's context.estimator
    EXPECT_EQ(add[1].estimator, "median"); // a context without one: results from before --estimator
    EXPECT_EQ(add[2].estimator, "median");
    EXPECT_EQ(add[0].replicates.size(), 3u);
    // A new night goes into the renamed column.
    EXPECT_TRUE(
        db.add(night("2026-11-04T00:00:00Z", 4e-6, true, "fastest-third"), "d.json", "").second);
    EXPECT_EQ(db.series("add").back().estimator, "fastest-third");
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(
                raw, "SELECT count(*) FROM measurements WHERE time > 0 AND estimator != ''", -1, &q,
                nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(q, 0), 5); // 3 + the new night's add and mm
  sqlite3_finalize(q);
  sqlite3_close(raw);
  EXPECT_NO_THROW(History{path}); // opened again: already the newest version, nothing to upgrade
}

TEST(History, RestatedMakesEveryNightWithOneEstimator) {
  testing::TempDir dir;
  History db(dir.file("h.sqlite"));
  db.add(night("2026-11-01T00:00:00Z", 1e-6, true, "min"), "a.json", "");
  db.add(night("2026-11-02T00:00:00Z", 1e-6, true, "median"), "b.json", "");
  const auto recorded = db.series("add");
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_DOUBLE_EQ(recorded[0].time, 0.99e-6); // min of {0.99, 1, 1.01} us
  EXPECT_DOUBLE_EQ(recorded[1].time, 1e-6);    // their median
  const auto one = restated(recorded, "median");
  EXPECT_DOUBLE_EQ(one[0].time, 1e-6);
  EXPECT_EQ(one[0].estimator, "median");
  EXPECT_DOUBLE_EQ(one[1].time, 1e-6);
  EXPECT_DOUBLE_EQ(restated(recorded, "min")[1].time, 0.99e-6);
  EXPECT_DOUBLE_EQ(restated(recorded, "")[0].time, 0.99e-6); // no estimator: as recorded
  Point bare;                                                // no replicates kept: the time stays
  bare.time = 5e-6;
  bare.estimator = "min";
  const auto kept = restated({bare}, "median");
  EXPECT_DOUBLE_EQ(kept[0].time, 5e-6);
  EXPECT_EQ(kept[0].estimator, "min");
}

TEST(History, AHistoryOfANewerOpbenchIsSaidToBeOne) {
  testing::TempDir dir;
  const std::string path = old_history(dir, "newer.sqlite", R"sql(
      CREATE TABLE measurements (run_id INTEGER, case_id TEXT, time REAL, later TEXT);
      PRAGMA user_version = 9;)sql");
  try {
    History db(path);
    FAIL() << "opened a version-9 history";
  } catch (const ResultsError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("newer opbench (schema version 9; this one reads up to 7)"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("not an opbench history"), std::string::npos) << message;
  }
}

TEST(History, NotAHistoryAndNoDate) {
  testing::TempDir dir;
  const std::string junk =
      dir.write("junk.sqlite", "this is not a database, just text that is long enough");
  EXPECT_THROW(History{junk}, ResultsError);
  History db(dir.file("ok.sqlite"));
  results::ResultSet undated;
  EXPECT_THROW(db.add(undated, "x.json", ""), ResultsError);
}

// Only `history add` makes a history, and only where there is no file (#47: a 0-byte history was
// taken as a new one, and every reader created one where there was none).
TEST(History, AMissingOrEmptyHistoryIsAnErrorUnlessAddCreatesIt) {
  testing::TempDir dir;
  const std::string missing = dir.file("typo.sqlite");
  for (const Access access : {Access::read, Access::update}) {
    try {
      History db(missing, access);
      FAIL() << "opened a history that is not there";
    } catch (const ResultsError& e) {
      EXPECT_NE(std::string(e.what()).find("no history here"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(core::path_exists(missing)); // and nothing was created
  }
  const std::string empty = dir.write("empty.sqlite", "");
  for (const Access access : {Access::read, Access::update, Access::create}) {
    try {
      History db(empty, access);
      FAIL() << "took a 0-byte file for a history";
    } catch (const ResultsError& e) {
      EXPECT_NE(std::string(e.what()).find("an empty file (0 bytes), not a history"),
                std::string::npos)
          << e.what();
    }
  }
  History created(missing, Access::create);
  created.add(night("2026-01-01T00:00:00Z", 1e-6), "n1.json", "");
  EXPECT_EQ(History(missing, Access::read).runs().size(), 1u);
}

// A reader takes no lock: it opens and reads while a writer holds the write lock (before, every
// open began a write transaction, so a reader waited 10 s behind a writer and failed).
TEST(History, AReaderOpensAndReadsWhileAWriterHoldsTheLock) {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  {
    History db(path, Access::create);
    db.add(night("2026-01-01T00:00:00Z", 1e-6), "n1.json", "");
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto start = std::chrono::steady_clock::now();
  const History reader(path, Access::read);
  EXPECT_EQ(reader.runs().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
}

} // namespace
} // namespace opbench::history
