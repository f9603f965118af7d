// The stage table (export --format stages / stages-csv) on results with known times.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "opbench/report/reporter.hpp"
#include "opbench/report/stage_reporter.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report {
namespace {

results::CaseResult staged(const std::string& name, const std::string& stage, double seconds,
                           std::vector<std::string> tags, const std::string& status = "ok") {
  results::CaseResult r;
  r.c.name = name;
  r.c.kind = results::Kind::sample;
  r.c.dtype = "float32";
  r.c.device = "cpu";
  r.c.threads = 1;
  r.c.direction = results::Direction::forward;
  r.c.stage = core::parse_name_or_throw<results::Stage>(stage, "stage", "test");
  r.c.tags = std::move(tags);
  r.c.source = "MMDET";
  r.c.given = {{"sizes", {8}}};
  r.c.case_id = results::make_case_id(name, r.c.given, "float32", "cpu", 1,
                                      results::Direction::forward, "contiguous", r.c.stage);
  r.status = core::parse_name_or_throw<results::Status>(status, "status", "test");
  if (r.status == results::Status::ok) {
    r.estimate = results::estimate_of({seconds});
    r.work.aten_calls = stage == "fused" ? 4 : 10;
    if (stage != "eager") {
      r.stage_info = results::StageInfo{};
      r.stage_info->fusion_groups = stage == "fused" ? 2 : 0;
    }
  } else {
    r.message = "the fuser found nothing to fuse\nmore";
  }
  return r;
}

results::ResultSet stage_set() {
  results::ResultSet set;
  set.cases = {staged("box_iou", "eager", 8e-6, {"Reduce"}),
               staged("box_iou", "script", 4e-6, {"Reduce"}),
               staged("box_iou", "fused", 2e-6, {"Reduce"}),
               staged("aeloss", "eager", 9e-6, {"Reduce", "ForLoop"}),
               staged("aeloss", "script", 9e-6, {"Reduce", "ForLoop"}),
               staged("aeloss", "fused", 0, {"Reduce", "ForLoop"}, "skipped"),
               // Eager only: no row.
               staged("lonely", "eager", 1e-6, {"Reduce"})};
  return set;
}

TEST(StageTable, RowsSpeedupsAndGeometricMeans) {
  const StageTable table = make_stage_table(stage_set());
  ASSERT_EQ(table.stages,
            (std::vector<results::Stage>{results::Stage::eager, results::Stage::script,
                                         results::Stage::fused}));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].case_id, "box_iou/sizes=[8]/float32/cpu/t1/forward");
  EXPECT_DOUBLE_EQ(*table.rows[0].cells[1].speedup, 2.0);
  EXPECT_DOUBLE_EQ(*table.rows[0].cells[2].speedup, 4.0);
  EXPECT_EQ(table.rows[0].cells[2].fusion_groups, 2);
  EXPECT_DOUBLE_EQ(*table.rows[1].cells[1].speedup, 1.0);
  EXPECT_FALSE(table.rows[1].cells[2].speedup.has_value());
  EXPECT_EQ(table.rows[1].cells[2].status, results::Status::skipped);
  ASSERT_GE(table.means.size(), 4u);
  // all: script sqrt(2 * 1), fused 4 over its one row.
  EXPECT_EQ(table.means[0].group, "all");
  EXPECT_NEAR(table.means[0].speedup[1], std::sqrt(2.0), 1e-12);
  EXPECT_EQ(table.means[0].rows[1], 2u);
  EXPECT_DOUBLE_EQ(table.means[0].speedup[2], 4.0);
  EXPECT_EQ(table.means[0].rows[2], 1u);
  EXPECT_EQ(table.means[1].group, "rows that ran every stage");
  EXPECT_EQ(table.means[1].rows[1], 1u);
  EXPECT_EQ(table.means[2].group, "ForLoop");
  EXPECT_DOUBLE_EQ(table.means[2].speedup[1], 1.0);
  EXPECT_TRUE(std::isnan(table.means[2].speedup[2]));
}

TEST(StageTable, CudaRowsUseTheBatchTime) {
  results::CaseResult r = staged("box_iou", "eager", 8e-6, {});
  r.timing.batch_times = {3e-5, 1e-5, 2e-5};
  EXPECT_DOUBLE_EQ(stage_time(r), 2e-5);
  EXPECT_DOUBLE_EQ(stage_time(staged("box_iou", "eager", 8e-6, {})), 8e-6);
}

TEST(StageReporter, MarkdownAndCsv) {
  std::ostringstream md, csv;
  write_report("stages", stage_set(), md);
  write_report("stages-csv", stage_set(), csv);
  const std::string text = md.str();
  EXPECT_NE(text.find("| box_iou | `sizes=[8]/float32/cpu/t1` | Reduce | 8.00 us | 4.00 us | 2.00× "
                      "| 2.00 us | 4.00× | 10 / 10 / 4 | 2 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| all | 1.41× (2) | 4.00× (1) |"), std::string::npos) << text;
  EXPECT_NE(text.find("- fused skipped: the fuser found nothing to fuse — 1 row(s), e.g. "
                      "`aeloss/sizes=[8]/float32/cpu/t1/forward`"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("lonely"), std::string::npos);
  const std::string table = csv.str();
  EXPECT_EQ(
      table.substr(0, table.find('\n')),
      "case_id,name,kind,tags,source,device,"
      "eager_status,eager_time_s,eager_speedup,eager_aten_calls,eager_fusion_groups,eager_compile_"
      "s,eager_break_even_calls,eager_message,"
      "script_status,script_time_s,script_speedup,script_aten_calls,script_fusion_groups,script_"
      "compile_s,script_break_even_calls,script_message,"
      "fused_status,fused_time_s,fused_speedup,fused_aten_calls,fused_fusion_groups,fused_compile_"
      "s,fused_break_even_calls,fused_message");
  EXPECT_NE(table.find("box_iou/sizes=[8]/float32/cpu/t1/"
                       "forward,box_iou,sample,Reduce,MMDET,cpu,ok,8e-06,1.0000,10,,,,,"
                       "ok,4e-06,2.0000,10,0,,,,ok,2e-06,4.0000,4,2,,,"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find(",skipped,,,,,,,the fuser found nothing to fuse"), std::string::npos)
      << table;
  // No stage says what it cost to make: no compile section.
  EXPECT_EQ(text.find("## Compile cost"), std::string::npos);
}

// Compile time over the time a call saves against eager: the calls that pay a stage back.
TEST(StageReporter, CompileCostAndBreakEvenCalls) {
  results::ResultSet set;
  auto compiled = [](const std::string& size, const std::string& stage, double seconds,
                     double compile, bool cached) {
    results::CaseResult r = staged("box_iou", stage, seconds, {"Reduce"});
    r.c.given = {{"sizes", {std::stoi(size)}}};
    r.c.case_id = results::make_case_id("box_iou", r.c.given, "float32", "cpu", 1,
                                        results::Direction::forward, "contiguous", r.c.stage);
    if (r.stage_info) {
      r.stage_info->compile_time = compile;
      r.stage_info->compile_cached = cached;
    }
    return r;
  };
  // Size 8: script saves 4 us a call for 0.2 s of compile: 50,000 calls; inductor saves 6 us
  // for 12 s: 2,000,000 calls. Size 16: inductor is slower than eager: never; script saves
  // 3 us for 0.1 s: 33,333.3, so 33,334 calls.
  set.cases = {
      compiled("8", "eager", 10e-6, 0, false),    compiled("8", "script", 6e-6, 0.2, false),
      compiled("8", "inductor", 4e-6, 12, true),  compiled("16", "eager", 10e-6, 0, false),
      compiled("16", "script", 7e-6, 0.1, false), compiled("16", "inductor", 11e-6, 30, false)};
  const StageTable table = make_stage_table(set);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_NEAR(*table.rows[0].cells[1].break_even_calls, 50000, 1e-6);
  EXPECT_NEAR(*table.rows[0].cells[2].break_even_calls, 2e6, 1e-3);
  EXPECT_FALSE(table.rows[1].cells[2].break_even_calls.has_value());
  EXPECT_FALSE(table.rows[0].cells[0].break_even_calls.has_value());
  std::ostringstream md, csv;
  write_report("stages", set, md);
  write_report("stages-csv", set, csv);
  const std::string text = md.str();
  EXPECT_NE(text.find("| case | | script | break-even calls | inductor | break-even calls |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| box_iou | `sizes=[8]/float32/cpu/t1` | 200.000 ms | 50000 | 12.000 s | "
                      "2000000 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| box_iou | `sizes=[16]/float32/cpu/t1` | 100.000 ms | 33334 | 30.000 s | "
                      "never |"),
            std::string::npos)
      << text;
  // The fixed-shape stage made a package for each of the two sizes.
  EXPECT_NE(text.find("| box_iou | inductor | 2 | 2 | 42.000 s |"), std::string::npos) << text;
  EXPECT_NE(csv.str().find(",ok,6e-06,1.6667,10,0,0.2,50000,"), std::string::npos) << csv.str();
  // The HTML stage chart says the same under each compiled cell.
  std::ostringstream html;
  write_report("html", set, html);
  EXPECT_NE(html.str().find("<span class=\"compile\">compile 200.000 ms, paid back after 50000 "
                            "calls</span>"),
            std::string::npos);
  EXPECT_NE(html.str().find("<span class=\"compile\">compile 30.000 s, never paid back</span>"),
            std::string::npos);
}

TEST(StageReporter, TheHtmlReportChartsTheStagesOnlyWhenThereAreAny) {
  std::ostringstream html, plain;
  write_report("html", stage_set(), html);
  const std::string page = html.str();
  EXPECT_NE(page.find("<a href=\"#stages\">stages</a>"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"stages\">"), std::string::npos);
  // box_iou: script ×2, fused ×4 (green bars); aeloss's fused cell says skipped with its reason.
  EXPECT_NE(page.find("4.00 us &times;2.00<br><svg class=\"speedup\""), std::string::npos);
  EXPECT_NE(page.find("2.00 us &times;4.00<br>"), std::string::npos);
  EXPECT_NE(
      page.find("<td class=\"skipped\" title=\"the fuser found nothing to fuse\">skipped</td>"),
      std::string::npos);
  EXPECT_NE(page.find("<td>all</td><td>&times;1.41 (2)<br>"), std::string::npos);
  results::ResultSet set;
  set.cases = {staged("lonely", "eager", 1e-6, {})};
  write_report("html", set, plain);
  EXPECT_EQ(plain.str().find("id=\"stages\""), std::string::npos);
}

// A compiler's failure names a file of its own per case; the reasons below the table group the
// cases by what failed, not by file.
TEST(StageReporter, CompilerFailuresGroupByReasonNotByTheirFile) {
  results::ResultSet set;
  for (const char* name : {"aeloss", "bmn_loss"}) {
    set.cases.push_back(staged(name, "eager", 9e-6, {}));
    results::CaseResult failed = staged(name, "fused", 0, {}, "compiler failed");
    failed.message =
        std::string("stage fused: partition compile failed (its whole text: /c/") + name + ".txt)";
    set.cases.push_back(failed);
  }
  std::ostringstream md;
  write_report("stages", set, md);
  EXPECT_NE(md.str().find("- fused compiler failed: stage fused: partition compile failed — 2 "
                          "row(s), e.g. `aeloss/sizes=[8]/float32/cpu/t1/forward`"),
            std::string::npos)
      << md.str();
}

TEST(StageReporter, NoStagedCaseSaysHowToMakeOne) {
  results::ResultSet set;
  set.cases = {staged("lonely", "eager", 1e-6, {})};
  std::ostringstream md;
  write_report("stages", set, md);
  EXPECT_NE(md.str().find("--stage eager,script,fused"), std::string::npos);
}

} // namespace
} // namespace opbench::report
