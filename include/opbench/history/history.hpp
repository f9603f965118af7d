#pragma once
// The results history: every run added to one SQLite file, and per case the series of its
// values over runs (nights). A run's value for a case is its time (results::Estimate::time, the
// run's --estimator over its repetition medians) with the estimator that made it; the repetition
// medians themselves are kept as the replicates, so that a series can be restated with one
// estimator (restated): the gate, the trends of `history show` and the HTML report do. Adding the
// same result twice changes nothing (a run is known by its date, host and command line).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/stats/change_points.hpp"

struct sqlite3;

namespace opbench::history {

// One run as stored.
struct RunInfo {
  std::int64_t id = 0;
  std::string date;  // the run's context.date (UTC)
  std::string label; // what the user named it (a commit), else the LibTorch version
  std::string host;
  std::string source;    // the file it was added from
  std::size_t cases = 0; // cases stored (ok ones)
};

// One case's value in one run.
struct Point {
  std::int64_t run_id = 0;
  std::string date;
  std::string label;
  double time = 0;                // [s] the run's time for the case (its estimate)
  std::string estimator;          // what made `time` from the replicates ("" where not recorded)
  std::vector<double> replicates; // [s] the run's repetition medians
  std::string call_path; // how opbench called the case (timing.call_path); "" where not recorded
  std::string measures;  // what `time` timed (results::TimingInfo::measures: "host", "gpu", ...)
  // The case's memory probe that night (absent before history version 5, or not probed), and
  // what a memory comparison needs the same (results::memory_setup_difference): the seed of its
  // inputs (Case::seed) and the run's libtorch_version and libtorch_cuda_compiled (null where not
  // recorded); `setup` also holds the run's host_allocator, which the gate needs the same.
  std::optional<results::MemoryStats> memory;
  std::optional<std::uint64_t> seed;
  Json setup;
  // An accepted change (`history accept`) holds from this run on: its reason; "" where none
  // starts here (an undone accept is no longer one).
  std::string accepted;
  // What on_accepted_level() multiplied `time` by to move it onto a later accepted level; 1: as
  // measured.
  double moved = 1.0;
  // Why the point is held out of every baseline (Exclusion::reason); "" when it is not.
  std::string excluded;
  // CUDA cases whose device state was read (history version 7 on): the lowest SM clock of the
  // night's repetitions [MHz], and how many of them were kept on a slowed device.
  std::optional<double> sm_clock_mhz;
  std::int64_t device_slowed = 0;
};

// An intended change of one case's level, recorded by `opbench history accept`: from run `run_id`
// on, the case's values are its new level. A record, never a deletion: undoing it stamps
// `undone`, and the values stay as measured.
struct Accept {
  std::int64_t id = 0;
  std::string case_id;
  std::int64_t run_id = 0; // the first run of the new level
  std::string run_date;    // that run's date
  std::string reason;
  std::string date;   // when it was accepted (UTC, ISO 8601)
  std::string undone; // when it was undone; "" while it holds
};

// A night, or one case's value in it, held out of every baseline the gate makes: by the gate
// (scripts/nightly.sh adds each night with its report, and a case the gate judged slower is held
// out until the change is accepted or fixed: after a fix the gate judges against the nights
// before the regression, as well as before it) or by a user (`history exclude`: a night on a
// noisy machine, a broken build). A record, never a deletion: `history include` stamps it undone,
// and accepting a case's change (`history accept`) includes the gate's exclusions of that case
// from the accepted run on (they are the new level).
struct Exclusion {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string run_date;
  std::string case_id; // "": the whole night
  std::string reason;
  std::string by;     // "gate" or "user"
  std::string date;   // when it was held out (UTC, ISO 8601)
  std::string undone; // when it was included again; "" while it holds
};

// `text` as a reason a history keeps (accept, exclude): trimmed; throws UsageError naming `what`
// when it is empty or holds a control character (a reason is shown in tables and reports).
std::string checked_reason(const std::string& text, const std::string& what);

// The series with the values before each accepted level moved onto it, so that the gate judges
// the nights after an intended step against the new level at once, with a full window, instead of
// calling them `slower` (or `unknown`, from a window of two levels) until it refills. At each
// point with `accepted`, every earlier value is multiplied by (the median of the values from that
// point on) / (the median of the values before it), accepts oldest first; `moved` keeps each
// point's factor. Without an accepted point the series is returned as it is.
std::vector<Point> on_accepted_level(std::vector<Point> series);

// The series with every point's time made with `estimator` from its replicates
// (results::estimate_with), so that nights recorded with another estimator (min, the default
// before fastest-third) do not shift against the others by the estimators' difference. A point with
// no replicates keeps its time; an empty `estimator` changes nothing.
std::vector<Point> restated(std::vector<Point> series, const std::string& estimator);

// Where a case's series changed level (stats::change_points over the points' values, with the
// gate's defaults): `history show` and the HTML report's trends mark them.
std::vector<stats::ChangePoint> change_points(const std::vector<Point>& series);

// Where a case's series was called another way than in the run before (Point::call_path, runs
// without one skipped): a step there may be opbench's, not the code's (the boxed call unpacks its
// arguments on every call). `history show` and the HTML report's trends mark them.
struct CallPathChange {
  std::size_t index = 0; // the first point called the new way
  std::string before, after;
};
std::vector<CallPathChange> call_path_changes(const std::vector<Point>& series);

// How a history is opened (docs/hostile-input.md). Only `create` makes a new history, and only
// where there is no file: a missing history is an error for the others, and a 0-byte file (a
// history truncated by a full disk, or a typo's `touch`) is an error for all, never a new history
// that would silently drop every night before it.
enum class Access {
  read, // an existing history, opened read-only: no lock a writer waits on, no write access needed
  update, // an existing history, read-write (prune)
  create, // read-write, created when there is no file (history add)
};

class History {
public:
  // Opens the history at `path` as `access` says; an older schema is upgraded on the way
  // (for a reader too, where the file is writable). Throws ResultsError naming the file and why.
  explicit History(const std::string& path, Access access = Access::create);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // Stores every ok case of `set`; returns the run's id and whether it was new (false: it was
  // added before and nothing changed).
  std::pair<std::int64_t, bool> add(const results::ResultSet& set, const std::string& source,
                                    const std::string& label);

  // The id of `set`'s run when it was added before, else -1.
  std::int64_t find(const results::ResultSet& set) const;

  // Runs, oldest first.
  std::vector<RunInfo> runs() const;

  // The values of `case_id`, oldest first: at most the newest `limit` (0: all), from runs
  // other than `exclude_run`, and (with `before_date` not empty) from runs dated before it.
  // With `measures` not empty, only values that time the same thing (results::TimingInfo::
  // measures: "host", "gpu", "batch", ...): a GPU time is never judged against a batch time.
  // With `call_path` not empty, only values of cases called that way (results::TimingInfo::
  // call_path) or not known (added by an opbench before history version 4).
  std::vector<Point> series(const std::string& case_id, std::size_t limit = 0,
                            std::int64_t exclude_run = -1, const std::string& before_date = "",
                            const std::string& measures = "",
                            const std::string& call_path = "") const;

  // Case ids with at least one value, sorted.
  std::vector<std::string> case_ids() const;

  // Records that `case_id`'s level from run `run_id` on is intended (`run_id` -1: the case's
  // newest run), and includes again the gate's exclusions of the case from that run on; returns
  // the accept's id. `date` is now (UTC). Throws UsageError when the case has no value in that
  // run (or none at all), `run_id` is no run's id, or `reason` is not one (checked_reason).
  std::int64_t accept(const std::string& case_id, std::int64_t run_id, const std::string& reason,
                      const std::string& date);
  // Undoes accept `id` (stamps it undone at `date`); throws UsageError when there is no such
  // accept or it was undone before.
  void undo_accept(std::int64_t id, const std::string& date);
  // Every accept (held or undone), oldest first; with `case_id`, that case's only.
  std::vector<Accept> accepts(const std::string& case_id = "") const;

  // Holds run `run_id` (the whole night, `case_id` ""), or case `case_id`'s value in it, out of
  // every baseline; `by` "gate" or "user"; returns the exclusion's id. Throws UsageError when the
  // run (or the case's value in it) is not in the history or the reason is not one
  // (checked_reason); holding out what is held out already returns that exclusion's id.
  std::int64_t exclude(std::int64_t run_id, const std::string& case_id, const std::string& reason,
                       const std::string& by, const std::string& date);
  // Includes exclusion `id` again (stamps it undone at `date`); throws UsageError when there is no
  // such exclusion or it was undone before.
  void include(std::int64_t id, const std::string& date);
  // Every exclusion (held or undone), oldest first; with `case_id`, those that hold out that
  // case's values (its own and whole nights).
  std::vector<Exclusion> exclusions(const std::string& case_id = "") const;

  // Keeps the newest `keep` runs and deletes the others; returns how many were deleted.
  std::size_t prune(std::size_t keep);

  const std::string& path() const { return m_path; }

private:
  std::string m_path;
  sqlite3* m_db = nullptr;
};

} // namespace opbench::history
