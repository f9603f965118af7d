// Per-case thresholds from a rule file (results/thresholds.hpp): the file's errors name the file
// and line, the most specific rule wins, and a rule that matches no case is an error.
#include <gtest/gtest.h>

#include <fstream>

#include "opbench/core/error.hpp"
#include "opbench/results/thresholds.hpp"
#include "temp_dir.hpp"

namespace opbench::results {
namespace {

std::string rules_file(const testing::TempDir& dir, const std::string& text) {
  const std::string path = dir.file("thresholds.txt");
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    read_threshold_rules(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

Case make_case(const std::string& id, const std::string& name, std::vector<std::string> tags) {
  Case c;
  c.case_id = id;
  c.name = name;
  c.tags = std::move(tags);
  return c;
}

TEST(Thresholds, TheMostSpecificRuleWins) {
  testing::TempDir dir;
  const auto rules = read_threshold_rules(rules_file(dir, "# noisy families\n"
                                                          "tag noisy 0.10\n"
                                                          "tag wide 0.20   # wider\n"
                                                          "\n"
                                                          "op index_put 0.08\n"
                                                          "case relu/a 0.15\n"));
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[1].where, dir.file("thresholds.txt") + ":3");
  const Case relu = make_case("relu/a", "relu", {"noisy"});
  EXPECT_DOUBLE_EQ(threshold_rule_for(rules, relu)->threshold, 0.15); // its own
  const Case put = make_case("index_put/b", "index_put", {"noisy", "wide"});
  EXPECT_DOUBLE_EQ(threshold_rule_for(rules, put)->threshold, 0.08); // its operator's
  const Case both = make_case("add/c", "add", {"noisy", "wide"});
  EXPECT_EQ(describe(*threshold_rule_for(rules, both)), "tag wide"); // the larger tag's
  EXPECT_EQ(threshold_rule_for(rules, make_case("mm/d", "mm", {})), nullptr);

  check_threshold_rules(rules, {&relu, &put, &both});
  const Case other = make_case("mm/d", "mm", {"wide"});
  try {
    check_threshold_rules(rules, {&put, &other});
    ADD_FAILURE() << "case relu/a matches nothing";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(":6: case relu/a matches no case"), std::string::npos)
        << e.what();
  }
}

TEST(Thresholds, ABadLineIsAnErrorNamingFileAndLine) {
  testing::TempDir dir;
  const std::string at = dir.file("thresholds.txt");
  EXPECT_NE(error_of(rules_file(dir, "tag noisy 0.1\nfamily conv 0.1\n"))
                .find(at + ":2: unknown kind 'family'"),
            std::string::npos);
  EXPECT_NE(
      error_of(rules_file(dir, "tag noisy\n")).find(":1: a rule needs a name and a threshold"),
      std::string::npos);
  for (const char* value : {"10%", "0", "1.5", "-0.1", "nan"}) {
    EXPECT_NE(error_of(rules_file(dir, std::string("op add ") + value + "\n"))
                  .find(":1: threshold '" + std::string(value) + "' is not a relative change"),
              std::string::npos)
        << value;
  }
  EXPECT_NE(error_of(rules_file(dir, "op add 0.1 please\n")).find("unexpected 'please'"),
            std::string::npos);
  EXPECT_NE(
      error_of(rules_file(dir, "op add 0.1\nop add 0.2\n")).find(":2: a second rule for op add"),
      std::string::npos);
  EXPECT_THROW(read_threshold_rules(dir.file("missing.txt")), Error);
}

} // namespace
} // namespace opbench::results
