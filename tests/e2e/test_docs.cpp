// The documentation's own links: every relative link of README.md and docs/*.md names a file of
// the repository, and a link to a heading (`page.md#anchor`) names a heading of that page, as
// GitHub makes anchors. Pages get split and headings renamed; a reader should never land nowhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
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
// A console line's form: numbers become '#', a number's unit 'U', the marks a case may or may not
// carry (noisy, UNSTABLE) are dropped, so that two runs of the same command print lines of the
// same form.
std::string line_form(std::string line) {
  for (const std::string mark : {" (noisy)", " · UNSTABLE"}) {
    for (std::size_t at; (at = line.find(mark)) != std::string::npos;)
      line.erase(at, mark.size());
  }
  // How wide a case's interval came out, and why, is the hour's.
  line = std::regex_replace(line, std::regex(R"( WIDE: [a-z]+( [a-z]+)*| \(one process\))"), "");
  line = std::regex_replace(line, std::regex(R"(\d+(\.\d+)?)"), "#");
  return std::regex_replace(line, std::regex(R"(# (ns|us|ms|s|min|h|B|KiB|MiB|GiB)\b)"), "# U");
}

TEST_F(Cli, TheReadmesExampleIsWhatTheBinaryPrints) {
  // The README's first code block: `$ opbench run ...`, then what it prints ("..." for the
  // cases left out).
  const std::string readme = testing::read_text(k_root + "/README.md");
  const std::size_t start = readme.find("```\n$ opbench run ");
  ASSERT_NE(start, std::string::npos);
  const std::string block = readme.substr(start + 4, readme.find("```", start + 4) - start - 4);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < block.size();) {
    const std::size_t end = block.find('\n', at);
    lines.push_back(block.substr(at, end - at));
    at = end == std::string::npos ? block.size() : end + 1;
  }
  std::string args = lines.front().substr(std::string("$ opbench ").size());
  args.replace(args.find("out.json"), 8, m_dir.file("out.json"));
  const auto run = opbench(args);
  ASSERT_EQ(run.code, 0) << run.err;
  std::string printed = run.err + run.out;
  for (std::size_t at; (at = printed.find(m_dir.path() + "/")) != std::string::npos;)
    printed.erase(at, m_dir.path().size() + 1);
  std::set<std::string> forms;
  std::vector<std::string> printed_lines;
  for (std::size_t at = 0; at < printed.size();) {
    const std::size_t end = printed.find('\n', at);
    printed_lines.push_back(printed.substr(at, end - at));
    forms.insert(line_form(printed_lines.back()));
    at = end == std::string::npos ? printed.size() : end + 1;
  }
  std::size_t compared = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i] == "..." || lines[i].rfind("$ ", 0) == 0)
      continue;
    ++compared;
    EXPECT_EQ(forms.count(line_form(lines[i])), 1u)
        << "the README shows\n  " << lines[i] << "\nbut the binary printed no line of its form:\n"
        << printed;
  }
  EXPECT_GE(compared, 4u); // the journal line, the plan, a case, the last line
  // The last line, counts included, is the binary's.
  const auto last = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(" case(s): ") != std::string::npos;
  });
  ASSERT_NE(last, lines.end());
  EXPECT_NE(std::find(printed_lines.begin(), printed_lines.end(), *last), printed_lines.end())
      << *last << "\n"
      << printed;
}

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
