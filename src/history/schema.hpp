#pragma once
// The history's SQLite schema and its upgrades from every older version (internal to history/;
// each version's change is told in schema.cpp).

#include <cstdint>
#include <string>

struct sqlite3;

namespace opbench::history {

// The schema version this opbench writes (PRAGMA user_version).
constexpr int k_user_version = 7;

// Creates what is missing of the schema in `db` and upgrades a history of version `found` (a
// fresh one: k_user_version) to k_user_version, inside the caller's transaction; `where` names the
// file in errors.
void make_schema(sqlite3* db, std::int64_t found, const std::string& where);

} // namespace opbench::history
