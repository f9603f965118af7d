// The HTML report as people see it: a small real run exported with --compare and --history,
// rendered by headless Chromium. Checks the DOM after the page's script ran (every case row,
// the expected marks in each chart), that the console stayed silent (a script error or a blocked
// request would speak there) and takes a screenshot. Skips only where no browser can be had,
// and never in CI (scripts/setup.sh installs Debian's chromium).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench {
namespace {

// $OPBENCH_BROWSER, else the first of chromium, chromium-browser, google-chrome on PATH.
std::string find_browser() {
  if (const char* env = std::getenv("OPBENCH_BROWSER"); env != nullptr && *env != '\0')
    return env;
  const char* path = std::getenv("PATH");
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    for (const auto& dir : core::split(path != nullptr ? path : "", ':')) {
      const std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
  }
  return "";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

class HtmlReport : public Cli {
protected:
  // Runs the browser on `page`; returns its stdout, the browser's log in `log`.
  std::string browse(const std::string& browser, const std::string& page, const std::string& action,
                     std::string& log) {
    const std::string log_file = m_dir.file("browser.log");
    const std::string command =
        "'" + browser +
        "' --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
        "--no-first-run --enable-logging=stderr --v=0 --virtual-time-budget=3000 "
        "--user-data-dir='" +
        m_dir.file("profile") + "' " + action + " 'file://" + page + "' 2>'" + log_file + "'";
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, n);
    ::pclose(pipe);
    log = testing::read_text(log_file);
    return out;
  }
};

TEST_F(HtmlReport, RendersInABrowserWithEveryCaseAndChartAndNoConsoleMessage) {
  const std::string browser = find_browser();
  if (browser.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true")
      FAIL() << "no browser: scripts/setup.sh installs chromium";
    GTEST_SKIP()
        << "no chromium, chromium-browser or google-chrome on PATH (scripts/setup.sh installs it)";
  }
  const std::string base = m_dir.file("base.json"), fresh = m_dir.file("new.json");
  const std::string db = m_dir.file("history.sqlite"), page = m_dir.file("report.html");
  const std::string run = "run --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json" +
                          k_quick + " --repetitions 3 --output ";
  ASSERT_EQ(opbench(run + base).code, 0);
  ASSERT_EQ(opbench(run + fresh).code, 0);
  ASSERT_EQ(opbench("history add --db " + db + " " + base).code, 0);
  const auto exported = opbench("export --format html --input " + fresh + " --compare " + base +
                                " --history " + db + " -o " + page);
  ASSERT_EQ(exported.code, 0) << exported.err;

  // What the page must hold, from the result file itself.
  const Json result = read_json(fresh);
  const std::size_t cases = result["cases"].size();
  std::size_t reps = 0, ticks = 0, roofline_points = 0;
  for (const auto& c : result["cases"]) {
    if (c["status"] != "ok")
      continue;
    reps += c["timing"]["repetition_medians"].size();
    ticks += std::min<std::size_t>(c["samples"].size(), 48);
    if (c.contains("work") && c["work"].contains("intensity") &&
        c["work"].contains("flops_per_second"))
      ++roofline_points;
  }
  ASSERT_GT(reps, 0u);

  const std::string html = testing::read_text(page);
  EXPECT_EQ(html.find("http://"), std::string::npos) << "the page names a remote address";
  EXPECT_EQ(html.find("https://"), std::string::npos) << "the page names a remote address";
  EXPECT_EQ(html.find(" src="), std::string::npos) << "the page loads something";

  std::string log;
  const std::string dom = browse(browser, page, "--dump-dom", log);
  ASSERT_NE(dom.find("data-ready=\"yes\""), std::string::npos)
      << "the page's script did not finish\n"
      << log;
  EXPECT_NE(dom.find("data-rows=\"" + std::to_string(cases) + "\""), std::string::npos);
  EXPECT_EQ(count(dom, "<tr class=\"case "), cases);
  for (const auto& c : result["cases"]) {
    EXPECT_NE(dom.find("data-id=\"" + c["case_id"].get<std::string>() + "\""), std::string::npos)
        << c["case_id"];
  }
  EXPECT_EQ(count(dom, "<circle class=\"rep\""), reps);
  EXPECT_EQ(count(dom, "<line class=\"sample\""), ticks);
  EXPECT_EQ(count(dom, "<circle class=\"point "), roofline_points);
  EXPECT_EQ(count(dom, "<tr class=\"cmp "), cases);            // --compare: every case
  EXPECT_EQ(count(dom, "<tr class=\"trend-row\""), cases);     // --history: every case
  EXPECT_EQ(count(dom, "<circle class=\"night\""), 2 * cases); // the stored night and this run
  // Chromium logs every console message (script errors, refused requests) as CONSOLE.
  EXPECT_EQ(log.find("CONSOLE"), std::string::npos) << log;
  EXPECT_EQ(log.find("Refused"), std::string::npos) << log;

  // A screenshot, as docs/pictures.md shows one (OPBENCH_SCREENSHOT keeps it).
  const char* keep = std::getenv("OPBENCH_SCREENSHOT");
  const std::string png =
      keep != nullptr && *keep != '\0' ? std::string(keep) : m_dir.file("report.png");
  browse(browser, page, "--hide-scrollbars --window-size=1280,1400 --screenshot='" + png + "'",
         log);
  const std::string image = testing::read_text(png);
  ASSERT_GT(image.size(), 1000u) << log;
  EXPECT_EQ(image.substr(1, 3), "PNG");
}

} // namespace
} // namespace opbench

namespace opbench {
namespace {

// run --trace: a Chrome trace per case, with the case's ATen operator among its events, named in
// the result and linked from the report.
TEST_F(Cli, TraceWritesAChromeTraceWithTheCasesAtenEventsPerCase) {
  const std::string out = m_dir.file("out.json"), traces = m_dir.file("traces");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops add,mm" + k_quick +
                         " --repetitions 2 --trace " + traces + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json result = read_json(out);
  ASSERT_EQ(result["cases"].size(), 2u);
  for (const auto& c : result["cases"]) {
    ASSERT_TRUE(c.contains("trace")) << c["case_id"];
    const std::string path = c["trace"].get<std::string>();
    EXPECT_EQ(path.rfind(core::absolute_path(traces), 0), 0u) << path;
    const Json trace = read_json(path);
    ASSERT_TRUE(trace.contains("traceEvents")) << path;
    const std::string op = c["operator"].get<std::string>(); // aten::add.Tensor, aten::mm
    const std::string want = op.substr(0, op.find('.'));
    std::size_t hits = 0, calls = 0;
    for (const auto& e : trace["traceEvents"]) {
      if (e.value("name", std::string()) == want)
        ++hits;
      if (e.value("name", std::string()) == "opbench::call" &&
          e.value("cat", std::string()) == "user_annotation")
        ++calls;
    }
    EXPECT_GE(hits, 3u) << want << " in " << path; // one per traced call
    EXPECT_EQ(calls, 3u) << path;                  // each traced call marked
  }
  const std::string page = m_dir.file("report.html");
  ASSERT_EQ(opbench("export --format html --input " + out + " -o " + page).code, 0);
  const std::string html = testing::read_text(page);
  EXPECT_EQ(count(html, "class=\"trace\""), 2u);
  // The links are relative to the report (both sit in the test's directory), so the two move
  // together.
  EXPECT_EQ(count(html, "class=\"trace\" href=\"traces/"), 2u) << html.substr(0, 2000);
  EXPECT_EQ(html.find("file://"), std::string::npos);
  core::create_directories(m_dir.file("sub"));
  ASSERT_EQ(
      opbench("export --format html --input " + out + " -o " + m_dir.file("sub/report.html")).code,
      0);
  EXPECT_EQ(
      count(testing::read_text(m_dir.file("sub/report.html")), "class=\"trace\" href=\"../traces/"),
      2u);
}

} // namespace
} // namespace opbench
