#include "schema.hpp"

#include <string>
#include <utility>
#include <vector>

#include "opbench/core/json.hpp"
#include "sqlite.hpp"

namespace opbench::history {
namespace {

constexpr const char* k_schema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  key TEXT UNIQUE NOT NULL,
  date TEXT NOT NULL,
  label TEXT NOT NULL,
  host TEXT NOT NULL,
  source TEXT NOT NULL,
  context TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS measurements (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL,
  time REAL NOT NULL,
  estimator TEXT NOT NULL DEFAULT '',
  replicates TEXT NOT NULL,
  measures TEXT NOT NULL DEFAULT '',
  call_path TEXT NOT NULL DEFAULT '',
  peak_bytes INTEGER,
  total_bytes INTEGER,
  allocations INTEGER,
  seed INTEGER,
  sm_clock_mhz REAL,
  device_slowed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, case_id)
);
CREATE INDEX IF NOT EXISTS measurements_by_case ON measurements(case_id, run_id);
CREATE TABLE IF NOT EXISTS accepts (
  id INTEGER PRIMARY KEY,
  case_id TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  reason TEXT NOT NULL,
  date TEXT NOT NULL,
  undone TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS exclusions (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL,
  by TEXT NOT NULL,
  date TEXT NOT NULL,
  undone TEXT NOT NULL DEFAULT ''
);
)sql";

// Version 2 keeps what each value times (results::TimingInfo::measures). A version-1 history gets
// the column: its CPU values timed the host clock; its CUDA values are from before opbench timed
// GPU time, so they stay '' and no GPU-time series ever meets them.
// Version 3 names the value for what it is, the run's time for the case (`time`, the column was
// `median` from before --estimator), and keeps the estimator that made it (`estimator`); an older
// history's values get their run's context.estimator (`median` where the context has none, as
// results::load_results reads such files).
// Version 4 keeps how opbench called each case (results::TimingInfo::call_path: "typed",
// "boxed", a stage's path): the boxed call unpacks its arguments on every call, so a case whose
// call path changed (a build of opbench that calls it typed; a LibTorch whose kernel signature the
// typed call no longer matches) steps without any change in the code under test. An older
// history's values get '' (not known), which matches every call path.
// Version 5 keeps each value's memory probe (results::MemoryStats: peak and total bytes,
// allocations) and the seed of its inputs (Case::seed) for the gate's memory verdicts; an older
// history's values have none (NULL), so
// the first night of this version is the first a memory verdict can look back to. It also has
// the table of accepted changes (`accepts`, History::accept), which the schema creates.
// Version 6 has the table of nights and values held out of the baselines (`exclusions`,
// History::exclude), which the schema creates; an older history has none.
// Version 7 keeps each CUDA value's device state (results/device_state.hpp): the lowest SM clock
// its repetitions read (`sm_clock_mhz`; NULL where none was read) and how many of them it kept on
// a slowed device (`device_slowed`), so the gate can tell a night the device ran slower from a
// slower code; an older history's values have neither.
static_assert(k_user_version == 7, "schema.hpp's version is the newest upgrade's");
constexpr const char* k_upgrade_from_1 = R"sql(
ALTER TABLE measurements ADD COLUMN measures TEXT NOT NULL DEFAULT '';
UPDATE measurements SET measures = 'host' WHERE case_id LIKE '%/cpu/t%';
)sql";
constexpr const char* k_upgrade_from_2 = R"sql(
ALTER TABLE measurements RENAME COLUMN median TO time;
ALTER TABLE measurements ADD COLUMN estimator TEXT NOT NULL DEFAULT '';
)sql";
constexpr const char* k_upgrade_from_3 = R"sql(
ALTER TABLE measurements ADD COLUMN call_path TEXT NOT NULL DEFAULT '';
)sql";
constexpr const char* k_upgrade_from_4 = R"sql(
ALTER TABLE measurements ADD COLUMN peak_bytes INTEGER;
ALTER TABLE measurements ADD COLUMN total_bytes INTEGER;
ALTER TABLE measurements ADD COLUMN allocations INTEGER;
ALTER TABLE measurements ADD COLUMN seed INTEGER;
)sql";
constexpr const char* k_upgrade_from_6 = R"sql(
ALTER TABLE measurements ADD COLUMN sm_clock_mhz REAL;
ALTER TABLE measurements ADD COLUMN device_slowed INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 2 to 3: the value column renamed, and each value's estimator from its run's context.
void upgrade_from_2(sqlite3* db, const std::string& where) {
  exec(db, k_upgrade_from_2, where);
  std::vector<std::pair<std::int64_t, std::string>> estimators;
  {
    Statement runs(db, "SELECT id, context FROM runs", where);
    while (runs.step()) {
      const Json context = core::parse_json(runs.text(1)).value_or(Json());
      const Json name = context.is_object() ? context.value("estimator", Json()) : Json();
      estimators.emplace_back(runs.integer(0),
                              name.is_string() ? name.get<std::string>() : "median");
    }
  }
  Statement set(db, "UPDATE measurements SET estimator = ? WHERE run_id = ?", where);
  for (const auto& [id, name] : estimators) {
    set.reset();
    set.bind(1, name).bind(2, id);
    set.step();
  }
}

} // namespace

void make_schema(sqlite3* db, std::int64_t found, const std::string& where) {
  exec(db, k_schema, where);
  if (found < 2)
    exec(db, k_upgrade_from_1, where);
  if (found < 3)
    upgrade_from_2(db, where);
  if (found < 4)
    exec(db, k_upgrade_from_3, where);
  if (found < 5)
    exec(db, k_upgrade_from_4, where);
  if (found < 7) // version 6 added a table only, which k_schema creates
    exec(db, k_upgrade_from_6, where);
}

} // namespace opbench::history
