#include "opbench/history/history.hpp"

#include <sqlite3.h>

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include "opbench/core/error.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/estimate.hpp"
#include "schema.hpp"
#include "sqlite.hpp"

namespace opbench::history {
namespace {

std::string run_key(const Json& ctx) {
  return core::text_field(ctx, "date") + "|" + core::text_field(ctx, "host") + "|" +
         core::text_field(ctx, "command_line");
}

} // namespace

namespace {

// The schema version of the history open at `db` (PRAGMA user_version), and whether it has the
// measurements table; throws ResultsError when it is not an SQLite database.
std::pair<std::int64_t, bool> schema_of(sqlite3* db, const std::string& path) {
  Statement check(db, "SELECT count(*) FROM sqlite_master", path);
  check.step();
  Statement version(db, "PRAGMA user_version", path);
  const std::int64_t found = version.step() ? version.integer(0) : 0;
  Statement table(db, "SELECT 1 FROM sqlite_master WHERE name = 'measurements'", path);
  return {found, table.step()};
}

} // namespace

History::History(const std::string& path, Access access) : m_path(path) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw ResultsError(path + ": is a directory; expected a history file (--db)");
  if (!exists && access != Access::create) {
    throw ResultsError(path + ": no history here (" + std::strerror(errno) +
                       "); `opbench history add --db " + path + " RESULT` starts one");
  }
  if (exists && st.st_size == 0) {
    throw ResultsError(path + ": an empty file (0 bytes), not a history: was it truncated? "
                              "Restore it, or remove it to start a new history with `opbench "
                              "history add`");
  }
  if (access == Access::read) {
    // A reader takes no write lock and needs no write access, unless the schema is older than
    // this opbench's: then it is upgraded as a writer would (below), where the file allows.
    m_db = open_database(path, SQLITE_OPEN_READONLY, "cannot open the history");
    auto refuse = [&](const std::string& why) {
      sqlite3_close(m_db);
      m_db = nullptr;
      throw ResultsError(why);
    };
    std::pair<std::int64_t, bool> schema;
    try {
      schema = schema_of(m_db, path);
    } catch (const ResultsError& e) {
      refuse(std::string(e.what()) + " (not an opbench history?)");
    }
    if (schema.first > k_user_version) {
      refuse(path + ": a history written by a newer opbench (schema version " +
             std::to_string(schema.first) + "; this one reads up to " +
             std::to_string(k_user_version) + "): use that opbench");
    }
    if (!schema.second)
      refuse(path + ": an SQLite file without opbench's tables: not an opbench history");
    if (schema.first == k_user_version)
      return;
    sqlite3_close(m_db); // an older schema: upgraded below, read-write
    m_db = nullptr;
  }
  m_db = open_database(path,
                       SQLITE_OPEN_READWRITE | (access == Access::create ? SQLITE_OPEN_CREATE : 0),
                       "cannot open the history for writing");
  std::string newer; // set when the file is a history of a newer schema: said as it is
  try {
    exec(m_db, "PRAGMA foreign_keys = ON;", path);
    {
      // Fails on a file that is not an SQLite database; finalized before the transaction, whose
      // lock it would otherwise hold up.
      Statement check(m_db, "SELECT count(*) FROM sqlite_master", path);
      check.step();
    }
    // The version is read inside the write transaction: where several processes open an older
    // history at once (the shards of one night), the first upgrades it and the others find it
    // upgraded.
    exec(m_db, "BEGIN IMMEDIATE", path);
    std::int64_t found = 0;
    bool fresh = true;
    {
      Statement version(m_db, "PRAGMA user_version", path);
      if (version.step())
        found = version.integer(0);
      Statement table(m_db, "SELECT 1 FROM sqlite_master WHERE name = 'measurements'", path);
      fresh = !table.step();
    }
    if (found > k_user_version) {
      exec(m_db, "ROLLBACK", path);
      newer = path + ": a history written by a newer opbench (schema version " +
              std::to_string(found) + "; this one reads up to " + std::to_string(k_user_version) +
              "): use that opbench, or start a new history with --db";
    } else {
      make_schema(m_db, fresh ? k_user_version : found, path);
      exec(m_db, "PRAGMA user_version = " + std::to_string(k_user_version), path);
      exec(m_db, "COMMIT", path);
    }
  } catch (const ResultsError& e) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw ResultsError(std::string(e.what()) + " (not an opbench history?)");
  }
  if (!newer.empty()) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw ResultsError(newer);
  }
}

History::~History() {
  sqlite3_close(m_db);
}

std::pair<std::int64_t, bool> History::add(const results::ResultSet& set, const std::string& source,
                                           const std::string& label) {
  const Json& ctx = set.context;
  const std::string date = core::text_field(ctx, "date");
  const std::string host = core::text_field(ctx, "host");
  if (date.empty())
    throw ResultsError(source + ": the result has no context.date: cannot place it in the history");
  const std::string key = run_key(ctx);
  const std::string name = !label.empty() ? label : core::text_field(ctx, "libtorch_version");
  // Looked up inside the write transaction: two processes adding the same run at once add it once.
  exec(m_db, "BEGIN IMMEDIATE", m_path);
  try {
    if (const std::int64_t known = find(set); known >= 0) {
      exec(m_db, "COMMIT", m_path);
      return {known, false};
    }
    Statement run(
        m_db,
        "INSERT INTO runs (key, date, label, host, source, context) VALUES (?, ?, ?, ?, ?, ?)",
        m_path);
    run.bind(1, key).bind(2, date).bind(3, name).bind(4, host).bind(5, source).bind(6, ctx.dump());
    run.step();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    Statement value(m_db,
                    "INSERT INTO measurements (run_id, case_id, time, estimator, replicates, "
                    "measures, call_path, peak_bytes, total_bytes, allocations, seed, "
                    "sm_clock_mhz, device_slowed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    m_path);
    for (const auto& r : set.cases) {
      if (r.status != results::Status::ok || !std::isfinite(r.estimate.time))
        continue;
      Json replicates = Json::array();
      for (double m : r.timing.repetition_medians) {
        if (std::isfinite(m))
          replicates.push_back(m);
      }
      if (replicates.empty())
        replicates.push_back(r.estimate.time);
      value.reset();
      value.bind(1, id)
          .bind(2, r.c.case_id)
          .bind(3, r.estimate.time)
          .bind(4, r.estimate.estimator)
          .bind(5, replicates.dump())
          .bind(6, core::name_of(r.timing.measures))
          .bind(7, core::name_of(r.timing.call_path));
      if (r.memory) {
        value.bind(8, r.memory->peak_bytes)
            .bind(9, r.memory->total_bytes)
            .bind(10, r.memory->allocations);
      } else {
        value.bind_null(8).bind_null(9).bind_null(10);
      }
      value.bind(11, static_cast<std::int64_t>(r.c.seed));
      if (const auto clock = results::lowest_sm_clock(r.timing.repetition_device_state))
        value.bind(12, *clock);
      else
        value.bind_null(12);
      value.bind(13, r.timing.device_slowed_repetitions);
      value.step();
    }
    exec(m_db, "COMMIT", m_path);
    return {id, true};
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::int64_t History::find(const results::ResultSet& set) const {
  Statement q(m_db, "SELECT id FROM runs WHERE key = ?", m_path);
  q.bind(1, run_key(set.context));
  return q.step() ? q.integer(0) : -1;
}

std::vector<RunInfo> History::runs() const {
  Statement q(
      m_db,
      "SELECT r.id, r.date, r.label, r.host, r.source, (SELECT count(*) FROM measurements m "
      "WHERE m.run_id = r.id) FROM runs r ORDER BY r.date, r.id",
      m_path);
  std::vector<RunInfo> out;
  while (q.step()) {
    out.push_back({q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4),
                   static_cast<std::size_t>(q.integer(5))});
  }
  return out;
}

std::vector<Point> History::series(const std::string& case_id, std::size_t limit,
                                   std::int64_t exclude_run, const std::string& before_date,
                                   const std::string& measures,
                                   const std::string& call_path) const {
  // Newest first with the limit, then reversed: oldest first.
  Statement q(
      m_db,
      "SELECT r.id, r.date, r.label, m.time, m.estimator, m.replicates, m.call_path, "
      "m.peak_bytes, m.total_bytes, m.allocations, m.seed, CASE WHEN json_valid(r.context) THEN "
      "json_object('libtorch_version', json(r.context -> '$.libtorch_version'), "
      "'libtorch_cuda_compiled', json(r.context -> '$.libtorch_cuda_compiled'), "
      "'host_allocator', json(r.context -> '$.host_allocator')) ELSE '{}' END, "
      "(SELECT a.reason FROM accepts a WHERE a.case_id = m.case_id AND a.run_id = r.id AND "
      "a.undone = '' ORDER BY a.id DESC LIMIT 1), m.measures, (SELECT e.reason FROM exclusions e "
      "WHERE e.run_id = r.id AND (e.case_id = '' OR e.case_id = m.case_id) AND e.undone = '' "
      "ORDER BY e.id DESC LIMIT 1), m.sm_clock_mhz, m.device_slowed FROM measurements m "
      "JOIN runs r ON r.id = m.run_id WHERE m.case_id = ? AND r.id != ? AND (? = '' OR r.date < ?) "
      "AND (? = '' OR m.measures = ?) AND (? = '' OR m.call_path = '' OR m.call_path = ?) "
      "ORDER BY r.date DESC, r.id DESC LIMIT ?",
      m_path);
  q.bind(1, case_id).bind(2, exclude_run).bind(3, before_date).bind(4, before_date);
  q.bind(5, measures).bind(6, measures).bind(7, call_path).bind(8, call_path);
  q.bind(9, limit == 0 ? std::int64_t{-1} : static_cast<std::int64_t>(limit));
  std::vector<Point> out;
  while (q.step()) {
    Point p;
    p.run_id = q.integer(0);
    p.date = q.text(1);
    p.label = q.text(2);
    p.time = q.real(3);
    p.estimator = q.text(4);
    p.call_path = q.text(6);
    if (!q.is_null(7)) {
      p.memory = results::MemoryStats{};
      p.memory->peak_bytes = q.integer(7);
      p.memory->total_bytes = q.integer(8);
      p.memory->allocations = q.integer(9);
    }
    if (!q.is_null(10))
      p.seed = static_cast<std::uint64_t>(q.integer(10));
    p.setup = core::parse_json(q.text(11)).value_or(Json());
    if (!q.is_null(12))
      p.accepted = q.text(12);
    p.measures = q.text(13);
    if (!q.is_null(14))
      p.excluded = q.text(14);
    if (!q.is_null(15))
      p.sm_clock_mhz = q.real(15);
    p.device_slowed = q.integer(16);
    const Json replicates = core::parse_json(q.text(5)).value_or(Json());
    if (replicates.is_array()) {
      for (const auto& v : replicates) {
        if (v.is_number())
          p.replicates.push_back(v.get<double>());
      }
    }
    out.push_back(std::move(p));
  }
  return {out.rbegin(), out.rend()};
}

std::vector<std::string> History::case_ids() const {
  Statement q(m_db, "SELECT DISTINCT case_id FROM measurements ORDER BY case_id", m_path);
  std::vector<std::string> out;
  while (q.step())
    out.push_back(q.text(0));
  return out;
}

std::size_t History::prune(std::size_t keep) {
  exec(m_db, "BEGIN IMMEDIATE", m_path);
  try {
    Statement q(m_db,
                "DELETE FROM runs WHERE id NOT IN (SELECT id FROM runs ORDER BY date DESC, id DESC "
                "LIMIT ?)",
                m_path);
    q.bind(1, static_cast<std::int64_t>(keep));
    q.step();
    const auto deleted = static_cast<std::size_t>(sqlite3_changes(m_db));
    exec(m_db, "COMMIT", m_path);
    return deleted;
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<Point> restated(std::vector<Point> series, const std::string& estimator) {
  if (estimator.empty())
    return series;
  for (auto& p : series) {
    if (p.replicates.empty() || p.estimator == estimator)
      continue;
    p.time = results::estimate_with(estimator, p.replicates);
    p.estimator = estimator;
  }
  return series;
}

std::vector<stats::ChangePoint> change_points(const std::vector<Point>& series) {
  std::vector<double> values;
  for (const auto& p : series)
    values.push_back(p.time);
  return stats::change_points(values);
}

std::vector<CallPathChange> call_path_changes(const std::vector<Point>& series) {
  std::vector<CallPathChange> out;
  std::string called; // the call path of the last point that recorded one
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string& path = series[i].call_path;
    if (path.empty())
      continue;
    if (!called.empty() && path != called)
      out.push_back({i, called, path});
    called = path;
  }
  return out;
}

} // namespace opbench::history
