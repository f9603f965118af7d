#pragma once
// Where results live on disk. A run appends each finished case to a journal
// (`OUTPUT.journal.jsonl`: a context line, then one case per line, flushed and fsynced), and at
// the end writes OUTPUT atomically (temp file, fsync, rename) and removes the journal. A run that
// is killed keeps every finished case in the journal, which `export` and `load_results` read.
// Repetitions of a case that has not finished yet (interleaved runs) are journalled too, as
// lines with a "repetition" key: reading a journal combines those of a case that never finished,
// so a killed run keeps every repetition it measured.
//
// One run, one journal (docs/hostile-input.md): the journal is locked (flock) while its run
// lives, so a second run with the same OUTPUT is refused, naming the journal, instead of
// interleaving lines with it; a journal left by an interrupted run is never truncated: it is kept
// as `OUTPUT.interrupted-YYYYMMDD-HHMMSS.journal.jsonl` (kept_journal()) before the new one starts.
// OUTPUT naming a directory or a read-only file is refused before anything is measured.

#include <cstdio>
#include <string>

#include "opbench/results/result_set.hpp"

namespace opbench::results {

class ResultWriter {
public:
  // Creates OUTPUT's directory and the journal, and writes the context line; throws ResultsError
  // naming the file and the OS's reason when it cannot (a full disk shows here, before anything
  // is measured).
  ResultWriter(std::string output_path, Json context);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Appends one finished case to the journal and keeps it for the final file.
  void append(const CaseResult& result);

  // Appends repetition `index` (0-based) of `of` of a case that is still running to the
  // journal only; the final file gets the case from append().
  void append_repetition(const CaseResult& repetition, int index, int of);

  // Writes OUTPUT atomically and removes the journal. With `order` (case ids), the file lists
  // the cases in that order (the plan's), whatever order they finished in.
  // `summary` (counts, warnings) goes into the file's "summary".
  void finish(const std::vector<std::string>& order = {}, const Json& summary = Json::object());

  const std::string& journal_path() const { return m_journal_path; }
  // Where an interrupted run's journal found at journal_path() was kept; "" when there was none.
  const std::string& kept_journal() const { return m_kept_journal; }

private:
  std::string m_output_path;
  std::string m_journal_path;
  std::string m_kept_journal;
  std::FILE* m_journal = nullptr;
  ResultSet m_set;
};

// `OUTPUT.journal.jsonl`.
std::string journal_path_for(const std::string& output_path);

// Reads a result file (.json) or a journal (.jsonl); throws ResultsError.
ResultSet load_results(const std::string& path);

// One line of a journal: the context line (the first), a kept repetition of a case not finished
// yet (`repetition` 0-based, of `planned`), or a finished case.
struct JournalLine {
  enum class Kind { context, repetition, finished };
  Kind kind = Kind::finished;
  Json context;
  CaseResult result;
  int repetition = 0;
  int planned = 0;
};
// Reads one parsed journal line (`first`: the journal's first line, its context); throws
// ResultsError naming `where`. A supervisor reads a measuring process's journal as it grows with
// this (run/child_runs.hpp).
JournalLine journal_line_from_json(const Json& json, bool first, const std::string& where);

// The most recently modified result (*.json, else *.journal.jsonl) in `directory`.
std::string latest_result(const std::string& directory);

// `DIR/run-YYYYMMDD-HHMMSS.json` in UTC, made unique with a suffix when taken.
std::string default_output_path(const std::string& directory);

} // namespace opbench::results
