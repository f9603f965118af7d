// Nights and values held out of the baselines (history.hpp: Exclusion, History::exclude).
#include <sqlite3.h>

#include <algorithm>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/history/history.hpp"
#include "sqlite.hpp"

namespace opbench::history {

std::string checked_reason(const std::string& text, const std::string& what) {
  const std::string reason = core::trim(text);
  if (reason.empty())
    throw UsageError(what + ": --reason must say why (it is shown beside the change)");
  if (std::any_of(reason.begin(), reason.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
      })) {
    throw UsageError(what + ": --reason holds a control character (a line break, an escape); "
                            "give it on one line of plain text");
  }
  return reason;
}

std::int64_t History::exclude(std::int64_t run_id, const std::string& case_id,
                              const std::string& reason, const std::string& by,
                              const std::string& date) {
  const std::string why = checked_reason(reason, "history exclude");
  exec(m_db, "BEGIN IMMEDIATE", m_path);
  try {
    Statement run(m_db,
                  "SELECT 1 FROM runs r WHERE r.id = ? AND (? = '' OR EXISTS (SELECT 1 FROM "
                  "measurements m WHERE m.run_id = r.id AND m.case_id = ?))",
                  m_path);
    run.bind(1, run_id).bind(2, case_id).bind(3, case_id);
    if (!run.step()) {
      throw UsageError(m_path + ": run " + std::to_string(run_id) +
                       (case_id.empty() ? " is not in this history"
                                        : " has no value of case '" + case_id + "'") +
                       " (`opbench history show` lists the runs)");
    }
    Statement held(
        m_db, "SELECT id FROM exclusions WHERE run_id = ? AND case_id = ? AND undone = ''", m_path);
    held.bind(1, run_id).bind(2, case_id);
    if (held.step()) {
      const std::int64_t id = held.integer(0);
      exec(m_db, "COMMIT", m_path);
      return id;
    }
    Statement insert(m_db,
                     "INSERT INTO exclusions (run_id, case_id, reason, by, date) VALUES (?, ?, ?, "
                     "?, ?)",
                     m_path);
    insert.bind(1, run_id).bind(2, case_id).bind(3, why).bind(4, by).bind(5, date);
    insert.step();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    exec(m_db, "COMMIT", m_path);
    return id;
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void History::include(std::int64_t id, const std::string& date) {
  Statement q(m_db, "UPDATE exclusions SET undone = ? WHERE id = ? AND undone = ''", m_path);
  q.bind(1, date).bind(2, id);
  q.step();
  if (sqlite3_changes(m_db) == 0) {
    const auto all = exclusions();
    const bool known =
        std::any_of(all.begin(), all.end(), [&](const auto& e) { return e.id == id; });
    throw UsageError(m_path + ": exclusion " + std::to_string(id) +
                     (known ? " was included again before" : " is not in this history") +
                     " (`opbench history show` lists the exclusions)");
  }
}

std::vector<Exclusion> History::exclusions(const std::string& case_id) const {
  Statement q(m_db,
              "SELECT e.id, e.run_id, r.date, e.case_id, e.reason, e.by, e.date, e.undone FROM "
              "exclusions e JOIN runs r ON r.id = e.run_id WHERE ? = '' OR e.case_id = '' OR "
              "e.case_id = ? ORDER BY e.id",
              m_path);
  q.bind(1, case_id).bind(2, case_id);
  std::vector<Exclusion> out;
  while (q.step()) {
    out.push_back({q.integer(0), q.integer(1), q.text(2), q.text(3), q.text(4), q.text(5),
                   q.text(6), q.text(7)});
  }
  return out;
}

} // namespace opbench::history
