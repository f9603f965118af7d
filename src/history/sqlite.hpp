#pragma once
// The few SQLite calls the history makes, wrapped: a prepared statement that finalizes itself,
// a statement run for its effect, and opening a database; each failure a ResultsError naming the
// history file and SQLite's message. Internal to src/history.

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "opbench/core/error.hpp"

namespace opbench::history {

// A prepared statement that finalizes itself.
class Statement {
public:
  Statement(sqlite3* db, const std::string& sql, const std::string& where)
      : m_db(db), m_where(where) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK)
      fail();
  }
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(m_stmt, i, v.c_str(), -1, SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(m_stmt, i, v));
    return *this;
  }
  Statement& bind_null(int i) {
    check(sqlite3_bind_null(m_stmt, i));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(m_stmt, i, v));
    return *this;
  }
  // Ready to run again with new bindings.
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  // True while a row is there.
  bool step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
      return true;
    if (rc != SQLITE_DONE)
      fail();
    return false;
  }
  std::string text(int i) const {
    const auto* p = sqlite3_column_text(m_stmt, i);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(m_stmt, i); }
  bool is_null(int i) const { return sqlite3_column_type(m_stmt, i) == SQLITE_NULL; }
  double real(int i) const { return sqlite3_column_double(m_stmt, i); }

private:
  void check(int rc) {
    if (rc != SQLITE_OK)
      fail();
  }
  [[noreturn]] void fail() const { throw ResultsError(m_where + ": " + sqlite3_errmsg(m_db)); }
  sqlite3* m_db;
  std::string m_where;
  sqlite3_stmt* m_stmt = nullptr;
};

inline void exec(sqlite3* db, const std::string& sql, const std::string& where) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw ResultsError(where + ": " + text);
  }
}

// The database at `path` opened with `flags`, waiting up to 10 s on another process's lock; throws
// ResultsError "PATH: WHAT (SQLite's message)".
inline sqlite3* open_database(const std::string& path, int flags, const char* what) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw ResultsError(path + ": " + what + " (" + message + ")");
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

} // namespace opbench::history
