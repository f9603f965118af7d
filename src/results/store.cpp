#include "opbench/results/store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
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

ResultWriter::ResultWriter(std::string output_path, Json context)
    : m_output_path(std::move(output_path)), m_journal_path(journal_path_for(m_output_path)) {
  make_parent(m_output_path);
  m_set.context = std::move(context);
  m_journal = std::fopen(m_journal_path.c_str(), "w");
  if (m_journal == nullptr)
    throw ResultsError(m_journal_path + ": cannot create journal");
  Json header = {{"schema_version", k_schema_version}, {"context", m_set.context}};
  const std::string line = header.dump() + "\n";
  std::fputs(line.c_str(), m_journal);
  std::fflush(m_journal);
  ::fsync(::fileno(m_journal));
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
  if (std::fputs(line.c_str(), journal) < 0 || std::fflush(journal) != 0) {
    throw ResultsError(path + ": cannot append to journal");
  }
  if (durable)
    ::fsync(::fileno(journal));
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
  std::fclose(m_journal);
  m_journal = nullptr;
  std::remove(m_journal_path.c_str());
}

ResultSet load_results(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw ResultsError(path + ": cannot open result file");
  if (core::ends_with(path, ".jsonl")) {
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
      Json json = Json::parse(line, nullptr, false);
      if (json.is_discarded()) {
        // A run killed mid-write leaves a torn last line; everything before it stands.
        if (in.peek() == EOF)
          break;
        throw ResultsError(where + ": malformed journal line");
      }
      if (!header_seen) {
        if (!json.contains("context"))
          throw ResultsError(where + ": journal has no context line");
        set.context = json["context"];
        header_seen = true;
      } else if (json.contains("repetition")) {
        CaseResult r = case_result_from_json(json, where);
        if (repetitions.count(r.c.case_id) == 0)
          repetition_order.push_back(r.c.case_id);
        const auto of = core::exact_int64(json.value("repetitions_planned", Json(0)));
        planned[r.c.case_id] = of && *of >= 0 && *of <= 1'000'000 ? static_cast<int>(*of) : 0;
        repetitions[r.c.case_id].push_back(std::move(r));
      } else {
        set.cases.push_back(case_result_from_json(json, where));
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
  Json json;
  try {
    json = Json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(path + ": invalid JSON (" + e.what() + ")");
  }
  return result_set_from_json(json, path);
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
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  std::string path = core::join_path(directory, std::string("run-") + stamp + ".json");
  for (int i = 1; core::path_exists(path) || core::path_exists(journal_path_for(path)); ++i) {
    path =
        core::join_path(directory, std::string("run-") + stamp + "-" + std::to_string(i) + ".json");
  }
  return path;
}

} // namespace opbench::results
