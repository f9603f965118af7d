#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "gbench_schema.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/units.hpp"
#include "opbench/cost/roofline.hpp"
#include "opbench/report/html_reporter.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/estimate.hpp"
#include "rendered_report.hpp"

namespace opbench::report {
namespace {

using testing_support::render;

results::ResultSet sample_set() {
  results::ResultSet set;
  set.context = {{"host", "box"}, {"libtorch_version", "2.x"}};
  results::CaseResult ok;
  ok.c.case_id = "conv2d/input=1x3x8x8,stride=[2,2]/float32/cpu/t1/forward";
  ok.c.name = "conv2d";
  ok.c.kind = results::Kind::op;
  ok.c.op = "aten::conv2d";
  ok.c.dtype = "float32";
  ok.c.device = "cpu";
  ok.c.threads = 1;
  ok.c.direction = results::Direction::forward;
  ok.samples = {1e-5, 2e-5, 3e-5};
  ok.summary = stats::summarize(ok.samples);
  ok.timing.noise = ok.summary.cv; // 50%: noisy
  ok.estimate = results::estimate_of({ok.summary.median});
  ok.memory = results::MemoryStats{};
  ok.memory->peak_bytes = 4096;
  ok.memory->total_bytes = 8192;
  ok.memory->allocations = 2;
  results::CaseResult bad = ok;
  bad.c.case_id = "add/self=3,other=5/float32/cpu/t1/forward";
  bad.status = results::Status::error;
  bad.message = "The size of tensor a (3) must match, \"really\"";
  bad.samples.clear();
  bad.summary = stats::summarize({});
  bad.memory.reset();
  set.cases = {ok, bad};
  return set;
}

TEST(Units, Durations) {
  EXPECT_EQ(core::format_duration(5e-10), "0.5 ns");
  EXPECT_EQ(core::format_duration(1.234e-5), "12.34 us");
  EXPECT_EQ(core::format_duration(0.0012345), "1.234 ms");
  EXPECT_EQ(core::format_duration(2.0), "2.000 s");
  EXPECT_EQ(core::format_duration(std::nan("")), "-");
}

TEST(Units, Bytes) {
  EXPECT_EQ(core::format_bytes(512), "512 B");
  EXPECT_EQ(core::format_bytes(4096), "4.00 KiB");
  EXPECT_EQ(core::format_bytes(4194304), "4.00 MiB");
  EXPECT_EQ(core::format_bytes(3LL << 29), "1.50 GiB");
}

TEST(CsvReporter, QuotesFieldsWithCommasAndQuotes) {
  const std::string csv = render("csv", sample_set());
  std::istringstream lines(csv);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header.rfind("case_id,status,time_us,estimator,", 0), 0u); // leads with the time
  // One repetition: no interval (its four columns empty).
  EXPECT_EQ(first.rfind("\"conv2d/input=1x3x8x8,stride=[2,2]/float32/cpu/t1/forward\",ok,20.0000,"
                        "fastest-third,,,,,20.0000,",
                        0),
            0u)
      << first;
  EXPECT_NE(first.find(",conv2d,op,"), std::string::npos) << first;
  EXPECT_EQ(second.rfind("\"add/self=3,other=5/float32/cpu/t1/forward\",error,", 0), 0u) << second;
  EXPECT_NE(first.find(",4096,8192,2"), std::string::npos) << first;
  EXPECT_NE(second.find("forward,\"The size of tensor a (3) must match, \"\"really\"\"\""),
            std::string::npos)
      << second;
}

TEST(MarkdownReporter, TableRowPerCase) {
  const std::string md = render("md", sample_set());
  EXPECT_NE(md.find("# opbench results"), std::string::npos);
  EXPECT_NE(md.find("- **host**: box"), std::string::npos);
  EXPECT_NE(md.find("1 ok, 1 error, 0 skipped"), std::string::npos);
  EXPECT_NE(
      md.find(
          "| `conv2d/input=1x3x8x8,stride=[2,2]/float32/cpu/t1/forward` | ok (noisy) | 20.00 us |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4.00 KiB | 2 |"), std::string::npos) << md;
}

TEST(JsonReporter, IsTheResultSchema) {
  const Json json = Json::parse(render("json", sample_set()));
  const results::ResultSet back = results::result_set_from_json(json, "export");
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].samples.size(), 3u);
}

TEST(MakeReporter, UnknownFormat) {
  std::ostringstream ignored;
  EXPECT_THROW(write_report("xml", results::ResultSet{}, ignored), UsageError);
}

} // namespace
} // namespace opbench::report

namespace opbench::report {
namespace {

// google/benchmark's JSON as google/benchmark writes a run with --benchmark_repetitions: per
// case one iteration entry per repetition, then the four aggregates computed as its
// statistics.cc computes them; the whole document held to its schema (gbench_schema.hpp).
TEST(GbenchReporter, OneEntryPerRepetitionThenTheAggregates) {
  results::ResultSet set = sample_set();
  set.context["caches"] =
      Json::array({{{"type", "Data"}, {"level", 1}, {"size", 32768}, {"num_sharing", 1}}});
  set.context["cpu_mhz"] = 2596.148;
  set.context["cpu_governor"] = nullptr;
  set.context["command_line"] = "/opt/opbench run --ops conv2d";
  results::CaseResult& ok = set.cases.front();
  ok.timing.repetition_medians = {1e-5, 3e-5, 2e-5};
  ok.timing.block_size = 10;
  ok.samples.assign(12, 2e-5); // 12 blocks of 10 calls: 40 calls a repetition
  ok.estimate = results::estimate_of(ok.timing.repetition_medians);
  ok.work.bytes = 2e3;
  ok.work.flops = 4e3;
  results::CaseResult single = ok; // one repetition: its entry, no aggregates
  single.c.case_id = "relu/self=8/float32/cpu/t1/forward";
  single.timing.repetition_medians = {5e-6};
  single.estimate.low = single.estimate.high = std::nan(""); // unknown: left out, never null
  set.cases.push_back(single);
  const results::CaseResult& first = set.cases.front();
  const Json doc = Json::parse(render("gbench", set));
  EXPECT_EQ(testing::gbench_schema_problems(doc), std::vector<std::string>{});

  const Json& ctx = doc["context"];
  EXPECT_EQ(ctx["host_name"], "box");
  EXPECT_EQ(ctx["executable"], "/opt/opbench");
  EXPECT_EQ(ctx["mhz_per_cpu"], 2596);
  EXPECT_EQ(ctx["caches"][0]["size"], 32768);
  EXPECT_EQ(ctx["libtorch_version"], "2.x");
  EXPECT_EQ(ctx["opbench_not_measured"],
            "1 of 3 cases have no time: add/self=3,other=5/float32/cpu/t1/forward (error: The size "
            "of tensor a (3) must match, \"really\")");
  const Json& benchmarks = doc["benchmarks"];
  ASSERT_EQ(benchmarks.size(), 3u + 4u + 1u);
  const std::string id = first.c.case_id;
  for (std::size_t i = 0; i < 3; ++i) {
    const Json& b = benchmarks[i];
    EXPECT_EQ(b["name"], id);
    EXPECT_EQ(b["family_index"], 0);
    EXPECT_EQ(b["repetitions"], 3);
    EXPECT_EQ(b["repetition_index"], i);
    EXPECT_EQ(b["iterations"], 40);
    const double median = first.timing.repetition_medians[i];
    EXPECT_DOUBLE_EQ(b["real_time"].get<double>(), median * 1e9);
    EXPECT_DOUBLE_EQ(b["cpu_time"].get<double>(), b["real_time"].get<double>());
    EXPECT_DOUBLE_EQ(b["bytes_per_second"].get<double>(), 2e3 / median);
    EXPECT_DOUBLE_EQ(b["items_per_second"].get<double>(), 4e3 / median);
    EXPECT_DOUBLE_EQ(b["opbench_time_ns"].get<double>(), first.estimate.time * 1e9);
    EXPECT_DOUBLE_EQ(b["opbench_peak_bytes"].get<double>(), 4096);
  }
  // mean 2e4 ns, median 2e4, sample stddev 1e4, cv 0.5 (a fraction, unit percentage).
  const double expected[] = {2e4, 2e4, 1e4, 0.5};
  const char* names[] = {"mean", "median", "stddev", "cv"};
  for (std::size_t k = 0; k < 4; ++k) {
    const Json& b = benchmarks[3 + k];
    EXPECT_EQ(b["name"], id + "_" + names[k]);
    EXPECT_EQ(b["run_type"], "aggregate");
    EXPECT_EQ(b["aggregate_name"], names[k]);
    EXPECT_EQ(b["iterations"], 3);
    EXPECT_NEAR(b["real_time"].get<double>(), expected[k], 1e-9 * expected[k]) << names[k];
  }
  EXPECT_EQ(benchmarks[7]["name"], single.c.case_id);
  EXPECT_EQ(benchmarks[7]["family_index"], 1);
  EXPECT_EQ(benchmarks[7]["repetitions"], 1);
  EXPECT_FALSE(benchmarks[7].contains("opbench_median_low_ns"));
  EXPECT_TRUE(benchmarks[7].contains("opbench_time_ns"));

  // Aggregates only: the four of the first case; the single repetition's entry stays.
  std::ostringstream aggregates;
  write_report("gbench", set, aggregates, true);
  const Json only = Json::parse(aggregates.str());
  EXPECT_EQ(testing::gbench_schema_problems(only), std::vector<std::string>{});
  ASSERT_EQ(only["benchmarks"].size(), 4u + 1u);
  EXPECT_EQ(only["benchmarks"][0]["aggregate_name"], "mean");
}

// CUDA cases: real_time is the device's time per call, cpu_time the host's (timing.cpu_times).
TEST(GbenchReporter, CudaCasesCarryTheHostsTimeAsCpuTime) {
  results::ResultSet set = sample_set();
  set.cases.resize(1);
  set.cases[0].timing.repetition_medians = {1e-5, 2e-5};
  set.cases[0].timing.cpu_times = {4e-6, 5e-6};
  const Json doc = Json::parse(render("gbench", set));
  EXPECT_EQ(testing::gbench_schema_problems(doc), std::vector<std::string>{});
  EXPECT_DOUBLE_EQ(doc["benchmarks"][0]["cpu_time"].get<double>(), 4e3);
  EXPECT_DOUBLE_EQ(doc["benchmarks"][1]["cpu_time"].get<double>(), 5e3);
  EXPECT_DOUBLE_EQ(doc["benchmarks"][2]["cpu_time"].get<double>(), 4.5e3); // mean
}

// The checker finds what google/benchmark's readers trip on.
TEST(GbenchSchema, NamesWhatIsWrong) {
  results::ResultSet set = sample_set();
  set.cases.front().timing.repetition_medians = {1e-5, 2e-5};
  const Json good = Json::parse(render("gbench", set));
  auto problems_after = [&](const std::function<void(Json&)>& change) {
    Json doc = good;
    change(doc);
    return testing::gbench_schema_problems(doc);
  };
  EXPECT_FALSE(problems_after([](Json& d) { d["context"]["json_schema_version"] = 2; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["context"]["opbench_runs"] = 3; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][0]["name"] = "other"; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][1]["repetition_index"] = 0; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][2].erase("aggregate_unit"); }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][2]["iterations"] = 40; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][0]["label2"] = "x"; }).empty());
  EXPECT_FALSE(problems_after([](Json& d) { d["benchmarks"][0].erase("cpu_time"); }).empty());
}

} // namespace
} // namespace opbench::report

namespace opbench::report {
namespace {

// A CUDA case: GPU time is its median, CPU and batch time beside it, in every view.
results::CaseResult cuda_case() {
  results::CaseResult r = sample_set().cases.front();
  r.c.case_id = "add/self=1,other=1/float32/cuda:0/t1/forward";
  r.c.device = "cuda:0";
  r.timing.measures = results::Measures::gpu;
  r.timing.cuda_graph = "on (58 calls per replay)";
  r.timing.cpu_times = {8.0e-6, 8.4e-6, 8.2e-6};
  r.timing.batch_times = {7.9e-6, 7.8e-6, 8.0e-6};
  return r;
}

TEST(DeviceTimes, ConsoleMarkdownCsvAndJsonSayWhichTime) {
  const results::CaseResult r = cuda_case();
  EXPECT_EQ(device_times_text(r), "GPU time · CPU 8.20 us · batch 7.90 us");
  EXPECT_NE(console_line(r).find("(GPU time · CPU 8.20 us · batch 7.90 us)"), std::string::npos)
      << console_line(r);
  EXPECT_EQ(device_times_text(sample_set().cases.front()),
            ""); // a CPU case: host time, nothing beside
  results::ResultSet set;
  set.cases = {r};
  EXPECT_NE(render("md", set).find("| GPU time · CPU 8.20 us · batch 7.90 us |"),
            std::string::npos);
  const std::string csv = render("csv", set);
  EXPECT_NE(csv.find(",measures,cpu_time_us,batch_time_us,kernel_time_us,kernels_per_call,"
                     "copies_per_call,kernel_off_stream\n"),
            std::string::npos);
  EXPECT_NE(csv.find(",gpu,8.2000,7.9000,,,,\n"), std::string::npos) << csv;
  // With --kernel-time: the profiler's kernel time per call and what a call launches.
  results::ResultSet profiled = set;
  results::KernelTime k;
  k.calls = 20;
  k.per_call = 1.25e-6;
  k.kernels_per_call = 2;
  k.copies_per_call = 0.5;
  profiled.cases[0].kernel_time = k;
  EXPECT_NE(render("csv", profiled).find(",gpu,8.2000,7.9000,1.2500,2,0.5,\n"), std::string::npos)
      << render("csv", profiled);
  // The JSON keeps every repetition's figures, and reads them back.
  const Json json = results::to_json(r);
  EXPECT_EQ(json["timing"]["measures"], "gpu");
  EXPECT_DOUBLE_EQ(json["timing"]["cpu_time"].get<double>(), 8.2e-6);
  const results::CaseResult back = results::case_result_from_json(json, "test");
  EXPECT_EQ(back.timing.measures, results::Measures::gpu);
  EXPECT_EQ(back.timing.batch_times, r.timing.batch_times);
  // Repetitions combine their CPU and batch times.
  const results::CaseResult combined = results::combine_repetitions({r, r});
  EXPECT_EQ(combined.timing.cpu_times.size(), 6u);
}

// A case whose numbers all differ: the time (the fastest repetition median, 10 us), the median of
// the repetition medians (11 us), the pooled samples' median (12 us), the spread (20%), the
// typical repetition's cv (4%) and the pooled samples' cv (about 29%).
results::ResultSet distinct_numbers() {
  results::ResultSet set = sample_set();
  set.cases.resize(1);
  results::CaseResult& r = set.cases[0];
  r.c.count = 3; // as a model's breakdown counts calls
  r.samples = {10e-6, 11e-6, 12e-6, 12e-6, 12e-6, 18e-6};
  r.summary = stats::summarize(r.samples);
  r.estimate = results::estimate_of({10e-6, 11e-6, 12e-6});
  r.timing.noise = 0.04;
  return set;
}

TEST(EveryOutput, NamesEachStatisticOnceAndShowsTheSameValue) {
  const results::ResultSet set = distinct_numbers();
  const results::CaseResult& r = set.cases[0];
  ASSERT_DOUBLE_EQ(r.estimate.time, 10e-6);
  ASSERT_DOUBLE_EQ(r.estimate.median, 11e-6);
  ASSERT_DOUBLE_EQ(r.summary.median, 12e-6);
  ASSERT_NEAR(r.estimate.spread, 2.0 / 11, 1e-9);
  ASSERT_GT(r.summary.cv, 0.2);
  // Console, md and HTML: the time, its interval (the two fastest of three repetitions 10%
  // apart, from one process), "spread 18.2%", "cv 4.0%"; never the pooled cv.
  const std::string line = console_line(r);
  EXPECT_EQ(line.rfind(r.c.case_id + "  10.00 us (±15.0% WIDE: repetitions disagree · "
                                     "fastest-third of 3 reps · median 11.00 us",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("spread 18.2%"), std::string::npos) << line;
  EXPECT_NE(line.find("cv 4.0%"), std::string::npos) << line;
  const std::string md = render("md", set);
  EXPECT_NE(md.find("| ok | 10.00 us | ±15.0% WIDE: repetitions disagree · fastest-third of 3 "
                    "reps · median 11.00 us"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("spread 18.2% | host |"), std::string::npos) << md;
  EXPECT_NE(md.find(" | 4.0% | 6 |"), std::string::npos) << md; // cv, then the samples
  const std::string html = render("html", set);
  EXPECT_NE(html.find("spread 18.2%"), std::string::npos);
  EXPECT_NE(html.find(">4.0%</td>"), std::string::npos);
  EXPECT_EQ(html.find(fmt::format(">{:.1f}%</td>", r.summary.cv * 100)), std::string::npos);
  // CSV: time, median, spread and cv as above; the pooled figures are named pooled_.
  std::istringstream csv(render("csv", set));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  const auto column = [&](const std::string& name) {
    std::vector<std::string> names, cells;
    std::istringstream h(header), c(row.substr(row.find("\",") + 2));
    for (std::string f; std::getline(h, f, ',');)
      names.push_back(f);
    cells.push_back(r.c.case_id);
    for (std::string f; std::getline(c, f, ',');)
      cells.push_back(f);
    const auto at = std::find(names.begin(), names.end(), name);
    return at == names.end() ? std::string("no column ") + name
                             : cells.at(static_cast<std::size_t>(at - names.begin()));
  };
  EXPECT_EQ(column("time_us"), "10.0000");
  EXPECT_EQ(column("interval_half_width"), "0.15000");
  EXPECT_EQ(column("interval_low_us"), "8.5000");
  EXPECT_EQ(column("interval_wide"), "repetitions disagree");
  EXPECT_EQ(column("median_us"), "11.0000");
  EXPECT_EQ(column("spread"), "0.18182");
  EXPECT_EQ(column("cv"), "0.04000");
  EXPECT_EQ(column("pooled_median_us"), "12.0000");
  EXPECT_EQ(column("pooled_cv"), fmt::format("{:.5f}", r.summary.cv));
  // The breakdown and the stage table take the case's time too.
  EXPECT_NE(render("breakdown", set).find("| 3 | 10.00 us | 30.00 us |"), std::string::npos)
      << render("breakdown", set);
}

TEST(EveryOutput, MarksACaseWhoseRepetitionsDisagree) {
  results::ResultSet set = distinct_numbers();
  results::CaseResult& r = set.cases[0];
  r.timing.repetition_medians = {10e-6, 11e-6, 35e-6};
  r.estimate = results::estimate_of(r.timing.repetition_medians);
  ASSERT_TRUE(r.estimate.unstable);
  EXPECT_NE(console_line(r).find("· UNSTABLE)"), std::string::npos) << console_line(r);
  EXPECT_NE(render("md", set).find("· UNSTABLE |"), std::string::npos);
  EXPECT_NE(render("html", set).find("· UNSTABLE"), std::string::npos);
  EXPECT_NE(render("csv", set).find(",2.27273,true,"), std::string::npos) << render("csv", set);
  EXPECT_EQ(results::to_json(r)["estimate"]["unstable"], true);
  EXPECT_TRUE(results::case_result_from_json(results::to_json(r), "t").estimate.unstable);
}

TEST(ConsoleLine, NamesRepetitionsSetAsideForTheMemoryBandwidth) {
  results::CaseResult r = sample_set().cases.front();
  EXPECT_EQ(console_line(r).find("set aside"), std::string::npos);
  r.timing.set_aside = {{0.5e-6, {55e9, 54e9}, 2}};
  r.timing.usual_bandwidth = 36.9e9;
  EXPECT_NE(console_line(r).find(" · 1 set aside: memory bandwidth off its usual 36.9 GB/s)"),
            std::string::npos)
      << console_line(r);
}

} // namespace
} // namespace opbench::report

namespace opbench::report {
namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(EveryOutput, APercentOfPeakFromBytesAloneIsLabelledSo) {
  // A sample has no FLOP count: its % of peak is of the memory roof alone, and says so.
  results::ResultSet set = sample_set();
  auto& r = set.cases[0];
  r.work.bytes = 1e6;
  cost::Peaks peaks;
  peaks.triad_bandwidth = 1e10;
  peaks.gemm_flops = 1e11;
  cost::apply_roofline(r.work, 1e-3, &peaks);
  ASSERT_TRUE(r.work.percent_of_peak.has_value());
  // ... against the roof of the level its bytes fit: DRAM, with no cache calibrated.
  EXPECT_EQ(r.work.ceiling, "DRAM");
  EXPECT_NE(render("md", set).find("| 10.0% memory (bytes only) (DRAM) |"), std::string::npos);
  EXPECT_NE(render("html", set).find(">10.0% memory (bytes only) (DRAM)</td>"), std::string::npos);
  EXPECT_NE(render("csv", set).find(",memory (bytes only),10.00,DRAM,"), std::string::npos);
  EXPECT_NE(render("json", set).find("\"bound\": \"memory (bytes only)\""), std::string::npos);
}

TEST(HtmlReporter, OneRowPerCaseMarksPerSampleAndRepetitionEscapedAndSelfContained) {
  results::ResultSet set = sample_set();
  auto& ok = set.cases[0];
  ok.c.tags = {"conv", "<b>"};
  ok.c.category = "nn.conv";
  ok.timing.repetition_medians = {1e-5, 2e-5};
  ok.estimate = results::estimate_of(ok.timing.repetition_medians);
  ok.samples.clear();
  for (int i = 0; i < 100; ++i)
    ok.samples.push_back(1e-5 + i * 1e-7); // more than the strip shows
  ok.work.flops = 1e6;
  ok.work.bytes = 1e5;
  ok.work.intensity = 10.0;
  ok.work.flops_per_second = 1e11;
  ok.work.bytes_per_second = 1e10;
  ok.work.bound = "memory";
  ok.work.percent_of_peak = 50.0;
  ok.work.peaks = "cpu/float32/t1";
  const std::string html = render("html", set);
  EXPECT_EQ(occurrences(html, "<tr class=\"case "), 2u);
  EXPECT_EQ(occurrences(html, "<circle class=\"rep\""), 2u);
  EXPECT_EQ(occurrences(html, "<line class=\"sample\""), HtmlReporter::k_strip_samples);
  EXPECT_EQ(occurrences(html, "<circle class=\"point "), 1u);
  // The memory roof the case was judged against: 1e10 B/s at 50% -> 20 GB/s.
  EXPECT_NE(html.find("memory roof 20.00 GB/s"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&quot;really&quot;"), std::string::npos); // the error message, escaped
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("http:"), std::string::npos);
  EXPECT_EQ(html.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("id=\"compare\""), std::string::npos); // no base given
}

TEST(HtmlReporter, ComparisonAndHistorySections) {
  const results::ResultSet base = sample_set();
  results::ResultSet fresh = sample_set();
  fresh.cases[0].timing.repetition_medians = {2e-5, 2e-5, 2e-5, 2e-5, 2e-5};
  fresh.cases[0].estimate = results::estimate_of(fresh.cases[0].timing.repetition_medians);
  const compare::Comparison cmp = compare::compare_results(base, fresh, compare::CompareOptions{});
  HtmlExtras extras;
  extras.comparison = &cmp;
  history::Point a, b;
  a.date = "2026-11-01";
  a.time = 1e-5;
  b.date = "2026-11-02";
  b.time = 2e-5;
  extras.trends[fresh.cases[0].c.case_id] = {a, b};
  extras.history_path = "h.sqlite";
  std::ostringstream out;
  HtmlReporter(extras).write(fresh, out);
  const std::string html = out.str();
  EXPECT_EQ(occurrences(html, "<tr class=\"cmp "), cmp.cases.size());
  EXPECT_NE(html.find("&times;2.000"), std::string::npos) << html;
  EXPECT_EQ(occurrences(html, "<tr class=\"trend-row\""), 1u);
  EXPECT_EQ(occurrences(html, "<circle class=\"night\""), 2u);
  EXPECT_EQ(occurrences(html, "<line class=\"change\""), 0u); // two runs: no level to speak of
}

TEST(HtmlReporter, TheComparisonCarriesCompareNotesAndAnAxisThatHoldsTheRatios) {
  const results::ResultSet base = sample_set();
  results::ResultSet fresh = sample_set();
  fresh.context["libtorch_version"] = "3.y"; // another LibTorch: compare notes the setups differ
  fresh.cases[0].timing.repetition_medians = {1.82e-4, 1.82e-4, 1.82e-4};
  fresh.cases[0].estimate = results::estimate_of(fresh.cases[0].timing.repetition_medians);
  const compare::Comparison cmp = compare::compare_results(base, fresh, compare::CompareOptions{});
  ASSERT_FALSE(cmp.notes.empty());
  HtmlExtras extras;
  extras.comparison = &cmp;
  std::ostringstream out;
  HtmlReporter(extras).write(fresh, out);
  const std::string html = out.str();
  EXPECT_EQ(occurrences(html, "<p class=\"note compare-note\">Note: "), cmp.notes.size());
  EXPECT_NE(html.find("setups differ ("), std::string::npos) << cmp.notes.front();
  // x9.1: the axis runs to x16, not x2, where x9.1 and x2.1 would both sit at the edge.
  EXPECT_NE(html.find("&times;9.100"), std::string::npos);
  EXPECT_NE(html.find("from &times;1/16 to &times;16"), std::string::npos);
}

TEST(HtmlReporter, TrendsMarkTheirChangePoints) {
  const results::ResultSet fresh = sample_set();
  HtmlExtras extras;
  std::vector<history::Point> points;
  for (int i = 0; i < 20; ++i) {
    history::Point p;
    p.date = std::string("2026-11-") + (i < 9 ? "0" : "") + std::to_string(i + 1);
    p.time = (i < 12 ? 1e-5 : 1.2e-5) * (1 + 0.0001 * ((i * 7) % 11)); // no trend within a level
    points.push_back(p);
  }
  extras.trends[fresh.cases[0].c.case_id] = points;
  extras.history_path = "h.sqlite";
  std::ostringstream out;
  HtmlReporter(extras).write(fresh, out);
  const std::string html = out.str();
  EXPECT_EQ(occurrences(html, "<line class=\"change\""), 1u);
  EXPECT_NE(html.find("level ×1.20"), std::string::npos);
  EXPECT_NE(html.find("from 2026-11-13"), std::string::npos)
      << html.substr(html.find("class=\"change\""), 200);
  EXPECT_EQ(occurrences(html, "<line class=\"called\""), 0u); // no call path recorded
}

TEST(HtmlReporter, TrendsMarkWhereTheCaseWasCalledAnotherWay) {
  const results::ResultSet fresh = sample_set();
  HtmlExtras extras;
  std::vector<history::Point> points(6);
  const char* paths[] = {"boxed", "", "boxed", "typed", "typed", "boxed"};
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].date = "2026-11-0" + std::to_string(i + 1);
    points[i].time = 1e-6;
    points[i].call_path = paths[i];
  }
  extras.trends[fresh.cases[0].c.case_id] = points;
  extras.history_path = "h.sqlite";
  std::ostringstream out;
  HtmlReporter(extras).write(fresh, out);
  const std::string html = out.str();
  EXPECT_EQ(occurrences(html, "<line class=\"called\""), 2u);
  EXPECT_NE(html.find("called typed from 2026-11-04 (was boxed)"), std::string::npos) << html;
  EXPECT_NE(html.find("called boxed from 2026-11-06 (was typed)"), std::string::npos) << html;
}

} // namespace
} // namespace opbench::report
