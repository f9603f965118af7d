#include "opbench/results/thresholds.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/names.hpp"

namespace opbench::results {
std::vector<ThresholdRule> read_threshold_rules(const std::string& path) {
  std::istringstream text(core::read_file(path));
  std::vector<ThresholdRule> rules;
  std::set<std::pair<int, std::string>> seen;
  std::string line;
  for (int number = 1; std::getline(text, line); ++number) {
    const std::string where = path + ":" + std::to_string(number);
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string kind, name, value, extra;
    if (!(words >> kind))
      continue; // blank or a comment
    auto bad = [&](const std::string& why) {
      throw UsageError(where + ": " + why +
                       " (expected `case|op|tag NAME THRESHOLD`, e.g. `tag noisy 0.10`)");
    };
    ThresholdRule rule;
    rule.where = where;
    if (!core::parse_name(kind, rule.kind))
      bad("unknown kind '" + kind + "'");
    if (!(words >> name >> value))
      bad("a rule needs a name and a threshold");
    if (words >> extra)
      bad("unexpected '" + extra + "' after the threshold");
    char* end = nullptr;
    rule.threshold = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !(rule.threshold > 0 && rule.threshold < 1))
      bad("threshold '" + value + "' is not a relative change over 0 and under 1");
    rule.name = name;
    if (!seen.insert({static_cast<int>(rule.kind), name}).second)
      bad(std::string("a second rule for ") + kind + " " + name);
    rules.push_back(std::move(rule));
  }
  return rules;
}

void check_threshold_rules(const std::vector<ThresholdRule>& rules,
                           const std::vector<const Case*>& cases) {
  for (const auto& rule : rules) {
    const bool matched = std::any_of(cases.begin(), cases.end(), [&](const Case* c) {
      switch (rule.kind) {
      case ThresholdRule::Kind::case_id:
        return c->case_id == rule.name;
      case ThresholdRule::Kind::op:
        return c->name == rule.name;
      case ThresholdRule::Kind::tag:
        return std::find(c->tags.begin(), c->tags.end(), rule.name) != c->tags.end();
      }
      return false;
    });
    if (!matched) {
      throw UsageError(rule.where + ": " + describe(rule) +
                       " matches no case of the results (a misspelt name would change nothing)");
    }
  }
}

const ThresholdRule* threshold_rule_for(const std::vector<ThresholdRule>& rules, const Case& c) {
  const ThresholdRule* op = nullptr;
  const ThresholdRule* tag = nullptr;
  for (const auto& rule : rules) {
    switch (rule.kind) {
    case ThresholdRule::Kind::case_id:
      if (rule.name == c.case_id)
        return &rule;
      break;
    case ThresholdRule::Kind::op:
      if (rule.name == c.name)
        op = &rule;
      break;
    case ThresholdRule::Kind::tag:
      if (std::find(c.tags.begin(), c.tags.end(), rule.name) != c.tags.end() &&
          (tag == nullptr || rule.threshold > tag->threshold))
        tag = &rule;
      break;
    }
  }
  return op != nullptr ? op : tag;
}

std::string describe(const ThresholdRule& rule) {
  return core::name_of(rule.kind) + " " + rule.name;
}

} // namespace opbench::results
