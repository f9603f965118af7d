// The documentation's own links: every relative link of README.md and docs/*.md names a file of
// the repository, and a link to a heading (`page.md#anchor`) names a heading of that page, as
// GitHub makes anchors. Pages get split and headings renamed; a reader should never land nowhere.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "temp_dir.hpp"

namespace opbench {
namespace {

const std::string k_root = OPBENCH_SOURCE_DIR;

// GitHub's anchor of a heading: lower case, spaces to hyphens, ASCII punctuation other than '-'
// and '_' dropped (bytes of other scripts kept).
std::string anchor_of(const std::string& heading) {
  std::string out;
  for (const unsigned char c : heading) {
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      out += '-';
    } else if (c == '-' || c == '_' || c >= 0x80) {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The lines of a Markdown text outside its code fences (```).
std::vector<std::string> prose_lines(const std::string& text) {
  std::vector<std::string> out;
  bool fenced = false;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
    } else if (!fenced) {
      out.push_back(line);
    }
  }
  return out;
}

std::set<std::string> anchors_of(const std::string& text) {
  std::set<std::string> out;
  for (const std::string& line : prose_lines(text)) {
    if (line.empty() || line[0] != '#')
      continue;
    const std::size_t title = line.find_first_not_of('#');
    if (title == std::string::npos || line[title] != ' ')
      continue;
    out.insert(anchor_of(line.substr(title + 1)));
  }
  return out;
}

// A line without its inline code spans (`...`): a link written in code is no link.
std::string without_code(const std::string& line) {
  std::string out;
  bool code = false;
  for (const char c : line) {
    if (c == '`') {
      code = !code;
    } else if (!code) {
      out += c;
    }
  }
  return out;
}

// Every `](target)` of a Markdown text outside code.
std::vector<std::string> links_of(const std::string& text) {
  std::vector<std::string> out;
  std::string prose;
  for (const std::string& line : prose_lines(text))
    prose += without_code(line) + "\n";
  for (std::size_t from = prose.find("]("); from != std::string::npos;
       from = prose.find("](", from + 2)) {
    const std::size_t close = prose.find_first_of(") \n", from + 2);
    if (close == std::string::npos || prose[close] != ')')
      continue;
    out.push_back(prose.substr(from + 2, close - from - 2));
  }
  return out;
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

TEST(Docs, EveryRelativeLinkLeadsToAFileAndHeadingThatExist) {
  std::vector<std::string> pages = {k_root + "/README.md"};
  for (const auto& path : core::list_directory(k_root + "/docs")) {
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0)
      pages.push_back(path);
  }
  ASSERT_GT(pages.size(), 10u);
  std::size_t checked = 0, with_anchor = 0;
  for (const auto& page : pages) {
    const std::string text = testing::read_text(page);
    for (const std::string& link : links_of(text)) {
      if (link.find("://") != std::string::npos || link.rfind("mailto:", 0) == 0)
        continue;
      const std::size_t hash = link.find('#');
      const std::string file = link.substr(0, hash);
      const std::string target = file.empty() ? page : folder_of(page) + "/" + file;
      ++checked;
      if (!core::path_exists(target)) {
        ADD_FAILURE() << page << ": the link (" << link << ") leads to no file";
        continue;
      }
      if (hash == std::string::npos || target.size() < 3 ||
          target.compare(target.size() - 3, 3, ".md") != 0)
        continue;
      ++with_anchor;
      const std::string anchor = link.substr(hash + 1);
      EXPECT_EQ(anchors_of(testing::read_text(target)).count(anchor), 1u)
          << page << ": the link (" << link << ") names no heading of " << target;
    }
  }
  EXPECT_GT(checked, 50u);
  EXPECT_GT(with_anchor, 2u);
}

TEST(Docs, AnchorsAreMadeAsGitHubMakesThem) {
  EXPECT_EQ(anchor_of("Where it stands (2026-11-26)"), "where-it-stands-2026-11-26");
  EXPECT_EQ(anchor_of("The machine's speed from run to run"), "the-machines-speed-from-run-to-run");
  EXPECT_EQ(anchor_of("The gate: `opbench compare --history DB NEW.json`"),
            "the-gate-opbench-compare---history-db-newjson");
  EXPECT_EQ(anchors_of("# A\n```\n# not a heading\n```\n## B c\n#hashtag\n"),
            (std::set<std::string>{"a", "b-c"}));
  EXPECT_EQ(links_of("see [a](x.md#y) and `[b](c)`\n```\n[no](z.md)\n```\n[d](https://e) [f](g h)"),
            (std::vector<std::string>{"x.md#y", "https://e"}));
}

// The options a text names: every `--name` that starts a word.
std::set<std::string> options_in(const std::string& text) {
  std::set<std::string> out;
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '-'))
      continue;
    std::size_t end = at + 2;
    while (end < text.size() &&
           (std::islower(static_cast<unsigned char>(text[end])) || text[end] == '-'))
      ++end;
    if (end > at + 2)
      out.insert(text.substr(at, end - at));
  }
  return out;
}

// #46: the README's table of `run` options and `opbench run --help` name the same options (the
// README had left out --samples, --memory-format and --trace).
TEST_F(Cli, TheReadmesRunOptionsAreTheOptionsOfRunHelp) {
  const std::string readme = testing::read_text(k_root + "/README.md");
  const std::size_t start = readme.find("### `opbench run` options");
  ASSERT_NE(start, std::string::npos);
  const std::size_t end = readme.find("\n#", start + 1);
  std::set<std::string> documented;
  for (const std::string& line : prose_lines(readme.substr(start, end - start))) {
    if (line.rfind("| `-", 0) != 0)
      continue;
    const std::string first_cell = line.substr(1, line.find(" | ", 1));
    for (const auto& option : options_in(first_cell))
      documented.insert(option);
  }
  const auto help = opbench("run --help");
  ASSERT_EQ(help.code, 0) << help.err;
  std::set<std::string> offered;
  for (const std::string& line : prose_lines(help.out)) {
    // "  --name ..." or "  -o,--name ...": an option's own line, not its description.
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || first > 4 || line[first] != '-')
      continue;
    const std::string head = line.substr(first, line.find(' ', first) - first);
    for (const auto& option : options_in(head))
      offered.insert(option);
  }
  offered.erase("--help");
  EXPECT_EQ(documented, offered);
}

} // namespace
} // namespace opbench
