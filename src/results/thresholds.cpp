#include "opbench/results/thresholds.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/names.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::results {
namespace {

// The words of a rule's line: KIND, NAME (a JSON string when quoted, so an id with spaces or a '#'
// is one name), THRESHOLD, and what follows; a '#' outside quotes starts a comment.
struct RuleWords {
  std::string kind, name, value, extra;
  bool quoted_badly = false;
};

RuleWords split_rule(const std::string& line) {
  RuleWords out;
  std::size_t at = 0;
  auto skip = [&] {
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])) != 0)
      ++at;
  };
  auto word = [&] {
    skip();
    const std::size_t from = at;
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])) == 0 &&
           line[at] != '#')
      ++at;
    return line.substr(from, at - from);
  };
  out.kind = word();
  skip();
  if (at < line.size() && line[at] == '"') {
    std::size_t end = at + 1;
    while (end < line.size() && line[end] != '"')
      end += line[end] == '\\' ? 2 : 1;
    const std::optional<Json> name =
        end < line.size() ? core::parse_json(line.substr(at, end + 1 - at)) : std::nullopt;
    if (!name || !name->is_string()) {
      out.quoted_badly = true;
      return out;
    }
    out.name = name->get<std::string>();
    at = end + 1;
  } else {
    out.name = word();
  }
  out.value = word();
  out.extra = word();
  return out;
}

} // namespace

std::vector<ThresholdRule> read_threshold_rules(const std::string& path) {
  std::istringstream text(core::read_file(path));
  std::vector<ThresholdRule> rules;
  std::set<std::pair<int, std::string>> seen;
  std::string line;
  for (int number = 1; std::getline(text, line); ++number) {
    const std::string where = path + ":" + std::to_string(number);
    const RuleWords words = split_rule(line);
    if (words.kind.empty())
      continue; // blank or a comment
    auto bad = [&](const std::string& why) {
      throw UsageError(where + ": " + why +
                       " (expected `case|op|tag NAME THRESHOLD`, e.g. `tag noisy 0.10`; a NAME "
                       "with spaces in double quotes, as JSON writes it)");
    };
    ThresholdRule rule;
    rule.where = where;
    if (!core::parse_name(words.kind, rule.kind))
      bad("unknown kind '" + words.kind + "'");
    if (words.quoted_badly)
      bad("a quoted name that does not end, or is no JSON string");
    if (words.name.empty() || words.value.empty())
      bad("a rule needs a name and a threshold");
    if (!words.extra.empty())
      bad("unexpected '" + words.extra + "' after the threshold");
    const std::string& value = words.value;
    char* end = nullptr;
    rule.threshold = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !(rule.threshold > 0 && rule.threshold < 1))
      bad("threshold '" + value + "' is not a relative change over 0 and under 1");
    // (a tag as the catalogue keeps it; a case id as make_case_id writes it)
    rule.name = rule.kind == ThresholdRule::Kind::tag       ? core::canonical_tag(words.name)
                : rule.kind == ThresholdRule::Kind::case_id ? core::printable(words.name)
                                                            : words.name;
    if (!seen.insert({static_cast<int>(rule.kind), rule.name}).second)
      bad("a second rule for " + words.kind + " " + rule.name);
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
