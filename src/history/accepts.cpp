// Accepted changes of a case's level (history.hpp: Accept, History::accept, on_accepted_level).
#include <sqlite3.h>

#include <algorithm>
#include <cmath>

#include "opbench/core/error.hpp"
#include "opbench/history/history.hpp"
#include "opbench/stats/statistics.hpp"
#include "sqlite.hpp"

namespace opbench::history {

std::int64_t History::accept(const std::string& case_id, std::int64_t run_id,
                             const std::string& reason, const std::string& date) {
  const std::string why = checked_reason(reason, "history accept");
  if (run_id < -1 || run_id == 0)
    throw UsageError(
        "history accept: --run must be a run's id (`opbench history show` lists them)");
  exec(m_db, "BEGIN IMMEDIATE", m_path);
  try {
    Statement find(m_db,
                   "SELECT r.id FROM measurements m JOIN runs r ON r.id = m.run_id WHERE "
                   "m.case_id = ? AND (? < 0 OR r.id = ?) ORDER BY r.date DESC, r.id DESC LIMIT 1",
                   m_path);
    find.bind(1, case_id).bind(2, run_id).bind(3, run_id);
    if (!find.step()) {
      throw UsageError(run_id < 0 ? m_path + ": no value of case '" + case_id + "' to accept"
                                  : m_path + ": run " + std::to_string(run_id) +
                                        " has no value of case '" + case_id + "'");
    }
    const std::int64_t run = find.integer(0);
    Statement insert(
        m_db, "INSERT INTO accepts (case_id, run_id, reason, date) VALUES (?, ?, ?, ?)", m_path);
    insert.bind(1, case_id).bind(2, run).bind(3, why).bind(4, date);
    insert.step();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    // The gate held the case's values out from this run on (it judged them slower): they are the
    // accepted level now.
    Statement include(m_db,
                      "UPDATE exclusions SET undone = ? WHERE case_id = ? AND by = 'gate' AND "
                      "undone = '' AND run_id IN (SELECT id FROM runs WHERE date >= (SELECT date "
                      "FROM runs WHERE id = ?))",
                      m_path);
    include.bind(1, date).bind(2, case_id).bind(3, run);
    include.step();
    exec(m_db, "COMMIT", m_path);
    return id;
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void History::undo_accept(std::int64_t id, const std::string& date) {
  Statement q(m_db, "UPDATE accepts SET undone = ? WHERE id = ? AND undone = ''", m_path);
  q.bind(1, date).bind(2, id);
  q.step();
  if (sqlite3_changes(m_db) == 0) {
    const auto all = accepts();
    const bool known =
        std::any_of(all.begin(), all.end(), [&](const auto& a) { return a.id == id; });
    throw UsageError(m_path + ": accept " + std::to_string(id) +
                     (known ? " was undone before" : " is not in this history") +
                     " (`opbench history show` lists the accepts)");
  }
}

std::vector<Accept> History::accepts(const std::string& case_id) const {
  Statement q(m_db,
              "SELECT a.id, a.case_id, a.run_id, r.date, a.reason, a.date, a.undone FROM accepts a "
              "JOIN runs r ON r.id = a.run_id WHERE ? = '' OR a.case_id = ? ORDER BY a.id",
              m_path);
  q.bind(1, case_id).bind(2, case_id);
  std::vector<Accept> out;
  while (q.step()) {
    out.push_back(
        {q.integer(0), q.text(1), q.integer(2), q.text(3), q.text(4), q.text(5), q.text(6)});
  }
  return out;
}

std::vector<Point> on_accepted_level(std::vector<Point> series) {
  for (std::size_t k = 1; k < series.size(); ++k) {
    if (series[k].accepted.empty())
      continue;
    std::vector<double> before, after;
    for (std::size_t i = 0; i < series.size(); ++i)
      (i < k ? before : after).push_back(series[i].time);
    const double factor = stats::median(after) / stats::median(before);
    if (!(factor > 0) || !std::isfinite(factor))
      continue;
    for (std::size_t i = 0; i < k; ++i) {
      series[i].time *= factor;
      series[i].moved *= factor;
    }
  }
  return series;
}

} // namespace opbench::history
