#include "opbench/results/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::results {

namespace {

void make_parent(const std::string& path) {
  const std::string parent = core::parent_path(path);
  if (!parent.empty()) {
    try {
      core::create_directories(parent);
    } catch (const Error& e) {
      throw ResultsError(e.what());
    }
  }
}

} // namespace

std::string journal_path_for(const std::string& output_path) {
  return output_path + ".journal.jsonl";
}

namespace {

// `journal`'s name once kept: OUTPUT.interrupted-<its last write, UTC>.journal.jsonl, unique.
std::string kept_name(const std::string& output, std::time_t modified) {
  std::tm utc{};
  gmtime_r(&modified, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  const std::string base = output + ".interrupted-" + stamp;
  std::string name = base + ".journal.jsonl";
  for (int i = 1; core::path_exists(name); ++i)
    name = base + "-" + std::to_string(i) + ".journal.jsonl";
  return name;
}

// Refuses an OUTPUT that cannot take a result file, before anything is measured.
void check_output(const std::string& output) {
  struct stat st {};
  if (::stat(output.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode))
    throw ResultsError(output + ": is a directory; --output takes a file path");
  if ((st.st_mode & 0222) == 0) {
    throw ResultsError(output + ": a read-only result file; opbench does not replace it (make it "
                                "writable, or choose another --output)");
  }
}

} // namespace

ResultWriter::ResultWriter(std::string output_path, Json context)
    : m_output_path(std::move(output_path)), m_journal_path(journal_path_for(m_output_path)) {
  check_output(m_output_path);
  make_parent(m_output_path);
  m_set.context = std::move(context);
  // Open and lock the journal; what is at its path when the lock is taken is either nothing, an
  // empty file, or an interrupted run's journal, which is kept under another name first.
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    if (attempt == 100)
      throw ResultsError(m_journal_path + ": cannot take the journal (it keeps changing)");
    const int candidate = ::open(m_journal_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (candidate < 0)
      throw ResultsError(core::os_error(m_journal_path, "cannot create journal", errno));
    if (::flock(candidate, LOCK_EX | LOCK_NB) != 0) {
      const int reason = errno;
      ::close(candidate);
      if (reason == EWOULDBLOCK) {
        throw ResultsError(m_journal_path + ": another opbench run is writing to this output "
                                            "now; give this run another --output");
      }
      throw ResultsError(core::os_error(m_journal_path, "cannot lock journal", reason));
    }
    struct stat mine {
    }, named{};
    if (::fstat(candidate, &mine) != 0 || ::stat(m_journal_path.c_str(), &named) != 0 ||
        mine.st_ino != named.st_ino || mine.st_dev != named.st_dev) {
      ::close(candidate); // the file was renamed or removed before the lock was ours: again
      continue;
    }
    if (mine.st_size > 0) {
      const std::string kept = kept_name(m_output_path, mine.st_mtime);
      if (std::rename(m_journal_path.c_str(), kept.c_str()) != 0) {
        const int reason = errno;
        ::close(candidate);
        throw ResultsError(core::os_error(
            m_journal_path, "an interrupted run's journal is here and cannot be kept", reason));
      }
      m_kept_journal = kept;
      ::close(candidate);
      continue;
    }
    fd = candidate;
  }
  m_journal = ::fdopen(fd, "w");
  if (m_journal == nullptr) {
    const int reason = errno;
    ::close(fd);
    throw ResultsError(core::os_error(m_journal_path, "cannot open journal", reason));
  }
  Json header = {{"schema_version", k_schema_version}, {"context", m_set.context}};
  const std::string line = header.dump() + "\n";
  if (std::fputs(line.c_str(), m_journal) < 0 || std::fflush(m_journal) != 0 ||
      ::fsync(::fileno(m_journal)) != 0) {
    const int reason = errno;
    std::fclose(m_journal);
    m_journal = nullptr;
    std::remove(m_journal_path.c_str());
    throw ResultsError(core::os_error(m_journal_path, "cannot write journal", reason));
  }
}

ResultWriter::~ResultWriter() {
  if (m_journal != nullptr)
    std::fclose(m_journal);
}

namespace {

// Flushed to the kernel at once (a killed process keeps it); fsynced too when `durable` (a
// power cut keeps it): finished cases, not the repetitions between them, which come thousands
// a run.
void append_line(std::FILE* journal, const std::string& path, const Json& json, bool durable) {
  const std::string line = json.dump() + "\n";
  if (std::fputs(line.c_str(), journal) < 0 || std::fflush(journal) != 0)
    throw ResultsError(core::os_error(path, "cannot append to journal", errno));
  if (durable && ::fsync(::fileno(journal)) != 0)
    throw ResultsError(core::os_error(path, "cannot write journal to disk (fsync)", errno));
}

} // namespace

void ResultWriter::append(const CaseResult& result) {
  append_line(m_journal, m_journal_path, to_json(result), true);
  m_set.cases.push_back(result);
}

void ResultWriter::append_repetition(const CaseResult& repetition, int index, int of) {
  Json json = to_json(repetition);
  json["repetition"] = index;
  json["repetitions_planned"] = of;
  append_line(m_journal, m_journal_path, json, false);
}

void ResultWriter::finish(const std::vector<std::string>& order, const Json& summary) {
  m_set.summary = summary;
  if (!order.empty()) {
    std::map<std::string, std::size_t> rank;
    for (std::size_t i = 0; i < order.size(); ++i)
      rank.emplace(order[i], i);
    auto position = [&](const CaseResult& r) {
      const auto it = rank.find(r.c.case_id);
      return it == rank.end() ? order.size() : it->second;
    };
    std::stable_sort(m_set.cases.begin(), m_set.cases.end(),
                     [&](const auto& a, const auto& b) { return position(a) < position(b); });
  }
  core::write_atomically(m_output_path, to_json(m_set).dump(2) + "\n");
  // Removed while still locked, so no other run can take it between the two.
  std::remove(m_journal_path.c_str());
  std::fclose(m_journal);
  m_journal = nullptr;
}

JournalLine journal_line_from_json(const Json& json, bool first, const std::string& where) {
  JournalLine line;
  if (first) {
    if (!json.is_object() || !json.contains("context"))
      throw ResultsError(where + ": journal has no context line");
    if (!json["context"].is_object())
      throw ResultsError(where + ": 'context' must be an object, found " +
                         json["context"].type_name());
    line.kind = JournalLine::Kind::context;
    line.context = json["context"];
    return line;
  }
  line.result = case_result_from_json(json, where);
  if (json.contains("repetition")) {
    line.kind = JournalLine::Kind::repetition;
    const auto index = core::exact_int64(json["repetition"]);
    line.repetition = index && *index >= 0 && *index <= 1'000'000 ? static_cast<int>(*index) : 0;
    const auto of = core::exact_int64(json.value("repetitions_planned", Json(0)));
    line.planned = of && *of >= 0 && *of <= 1'000'000 ? static_cast<int>(*of) : 0;
  }
  return line;
}

ResultSet load_results(const std::string& path) {
  std::string text;
  try {
    text = core::read_file(path);
  } catch (const Error& e) {
    throw ResultsError(e.what());
  }
  if (core::ends_with(path, ".jsonl")) {
    std::istringstream in(text);
    ResultSet set;
    std::string line;
    int number = 0;
    bool header_seen = false;
    // Repetitions of cases that may never have finished, by case id, in journal order.
    std::map<std::string, std::vector<CaseResult>> repetitions;
    std::vector<std::string> repetition_order;
    std::map<std::string, int> planned;
    while (std::getline(in, line)) {
      ++number;
      if (core::trim(line).empty())
        continue;
      const std::string where = path + ":" + std::to_string(number);
      std::string error;
      std::optional<Json> parsed = core::parse_json(line, &error);
      if (!parsed) {
        // A run killed mid-write leaves a torn last line; everything before it stands.
        if (in.peek() == EOF && core::starts_with(error, "invalid JSON"))
          break;
        throw ResultsError(where + ": malformed journal line: " + error);
      }
      JournalLine entry = journal_line_from_json(*parsed, !header_seen, where);
      if (entry.kind == JournalLine::Kind::context) {
        set.context = std::move(entry.context);
        header_seen = true;
      } else if (entry.kind == JournalLine::Kind::repetition) {
        const std::string id = entry.result.c.case_id;
        if (repetitions.count(id) == 0)
          repetition_order.push_back(id);
        planned[id] = entry.planned;
        repetitions[id].push_back(std::move(entry.result));
      } else {
        set.cases.push_back(std::move(entry.result));
      }
    }
    if (!header_seen)
      throw ResultsError(path + ": empty journal");
    std::set<std::string> finished;
    for (const auto& r : set.cases)
      finished.insert(r.c.case_id);
    for (const auto& id : repetition_order) {
      if (finished.count(id) > 0)
        continue;
      // With the run's estimator, which each repetition records.
      CaseResult partial =
          combine_repetitions(repetitions[id], repetitions[id].front().estimate.estimator);
      if (partial.status == results::Status::ok) {
        partial.message = std::to_string(partial.timing.repetition_medians.size()) + " of " +
                          std::to_string(planned[id]) +
                          " repetitions: the run ended before the others";
      }
      set.cases.push_back(std::move(partial));
    }
    return set;
  }
  std::string error;
  const std::optional<Json> json = core::parse_json(text, &error);
  if (!json)
    throw ResultsError(path + ": " + error);
  return result_set_from_json(*json, path);
}

std::string latest_result(const std::string& directory) {
  if (!core::is_directory(directory)) {
    throw ResultsError(directory +
                       ": no results directory (run `opbench run` first, or pass --input)");
  }
  std::string best;
  std::int64_t best_time = 0;
  for (const char* suffix : {".json", ".journal.jsonl"}) {
    for (const std::string& name : core::list_directory(directory)) {
      if (!core::is_regular_file(name) || !core::ends_with(name, suffix))
        continue;
      const std::int64_t time = core::modified_ns(name);
      if (best.empty() || time > best_time || (time == best_time && name > best)) {
        best = name;
        best_time = time;
      }
    }
    if (!best.empty())
      return best;
  }
  throw ResultsError(directory + ": no result files (run `opbench run` first, or pass --input)");
}

std::string default_output_path(const std::string& directory) {
  const std::string stamp = core::utc_now(core::UtcFormat::file_stamp);
  std::string path = core::join_path(directory, "run-" + stamp + ".json");
  for (int i = 1; core::path_exists(path) || core::path_exists(journal_path_for(path)); ++i) {
    path = core::join_path(directory, "run-" + stamp + "-" + std::to_string(i) + ".json");
  }
  return path;
}

} // namespace opbench::results
