#include "opbench/results/merge.hpp"

#include <map>
#include <set>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::results {

namespace {

// A context's measuring settings by name: the top-level keys older files carry, then the
// "measuring" record's fields (the same names where they overlap).
std::map<std::string, Json> measuring_settings(const Json& context) {
  std::map<std::string, Json> out;
  for (const char* key : {"seed", "repetitions", "estimator", "processes", "interleave", "isolate"})
    if (context.contains(key))
      out[key] = context[key];
  if (context.contains("measuring") && context["measuring"].is_object()) {
    for (const auto& [key, value] : context["measuring"].items())
      out[key] = value;
  }
  return out;
}

} // namespace

std::vector<std::string> measuring_differences(const Json& a, const Json& b) {
  const auto x = measuring_settings(a), y = measuring_settings(b);
  std::set<std::string> names;
  for (const auto& [key, value] : x)
    names.insert(key);
  for (const auto& [key, value] : y)
    names.insert(key);
  std::vector<std::string> out;
  for (const auto& name : names) {
    const auto i = x.find(name), j = y.find(name);
    const std::string left = i == x.end() ? "not recorded" : i->second.dump();
    const std::string right = j == y.end() ? "not recorded" : j->second.dump();
    if (left != right)
      out.push_back(name + " " + left + " vs " + right);
  }
  return out;
}

const std::vector<std::string>& setup_keys() {
  static const std::vector<std::string> k_keys = {"libtorch_version", "libtorch_cuda_compiled",
                                                  "cpu_model", "host_allocator"};
  return k_keys;
}

ResultSet merge_results(std::vector<std::pair<std::string, ResultSet>> inputs) {
  ResultSet merged;
  std::set<std::string> seen;
  Json sources = Json::array();
  const std::string first = inputs.empty() ? std::string() : inputs.front().first;
  for (auto& [path, set] : inputs) {
    if (sources.empty()) {
      merged.context = set.context;
    } else {
      for (const auto& key : setup_keys()) {
        const Json a = merged.context.value(key, Json());
        const Json b = set.context.value(key, Json());
        if (a != b) {
          throw ResultsError(path + ": " + key + " is " + b.dump() + ", but " + first + " has " +
                             a.dump() + " (hosts " + set.context.value("host", Json("?")).dump() +
                             " and " + merged.context.value("host", Json("?")).dump() +
                             "); results of different setups are not merged");
        }
      }
      const auto differences = measuring_differences(set.context, merged.context);
      if (!differences.empty()) {
        throw ResultsError(path + ": measured differently from " + first + " (" +
                           core::join(differences, "; ") +
                           ", this file's first); results measured differently are not merged: "
                           "measure the shards with the same settings");
      }
    }
    sources.push_back({{"file", path},
                       {"host", set.context.value("host", Json(""))},
                       {"date", set.context.value("date", Json(""))},
                       {"cases", set.cases.size()}});
    for (auto& r : set.cases) {
      if (!seen.insert(r.c.case_id).second)
        throw ResultsError(path + ": case " + r.c.case_id + " is in two of the files to merge");
      merged.cases.push_back(std::move(r));
    }
  }
  merged.context["merged_from"] = sources;
  return merged;
}

} // namespace opbench::results
