// End-to-end: the nightly script and the gate (compare --history) over real runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/store.hpp"

namespace opbench {
namespace {

// tests/e2e/junit_check.py's exit status on `path`: 0 when it holds to the JUnit schema's rules.
int junit_check(const std::string& path) {
  return std::system(("python3 " + std::string(OPBENCH_SOURCE_DIR) + "/tests/e2e/junit_check.py " +
                      path + " >/dev/null")
                         .c_str());
}

TEST_F(Cli, NightlyScriptJudgesEachNightAgainstTheHistory) {
  const std::string script = std::string(OPBENCH_SOURCE_DIR) + "/scripts/nightly.sh";
  const std::string db = m_dir.file("nightly/history.sqlite");
  // Two nights of history are enough here (the default is 5); a huge floor: no candidate.
  const std::string env =
      "OPBENCH='" + std::string(OPBENCH_BINARY) + "' OPBENCH_NIGHTLY_DIR='" +
      m_dir.file("nightly") +
      "' OPBENCH_GATE_ARGS='--min-history 2 --effect-floor 100' OPBENCH_LABEL=abc123 ";
  const std::string args = " --config " + k_data +
                           "/tiny.csv --threads 1 --warmup 1 --runs 3 --min-time 0 --max-time 0.01";
  auto shell = [&](const std::string& command) {
    const std::string err = m_dir.file("nightly.err");
    const int status = std::system(
        (env + command + " >'" + m_dir.file("nightly.out") + "' 2>'" + err + "'").c_str());
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_text(err));
  };
  for (int night = 0; night < 3; ++night) {
    const auto r = shell(script + args);
    ASSERT_EQ(r.first, 0) << r.second;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // another date for the next night
  }
  int results = 0, first_reports = 0, gates = 0, junits = 0;
  std::string last_gate, last_gate_name;
  for (const std::string& path : core::list_directory(m_dir.file("nightly"))) {
    const std::string name = core::filename(path);
    auto ends = [&](const std::string& suffix) {
      return name.size() > suffix.size() &&
             name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends(".gate.junit.xml")) {
      // Every night writes its verdicts as JUnit, the first (no verdicts yet) too.
      ++junits;
      EXPECT_EQ(junit_check(path), 0) << path;
    } else if (ends(".gate.md")) {
      ++gates;
      // The third night's report (names carry the UTC time).
      if (name > last_gate_name) {
        last_gate_name = name;
        last_gate = testing::read_text(path);
      }
    } else if (ends(".md")) {
      ++first_reports;
    } else if (name.rfind("nightly-", 0) == 0 && name.find('.') == name.size() - 5 &&
               ends(".json")) {
      // The night's result itself, not its gate files or a second look (a loaded machine can
      // ask for one).
      ++results;
    }
  }
  EXPECT_EQ(results, 3);
  EXPECT_EQ(junits, 3);
  EXPECT_EQ(first_reports, 1); // the first night starts the history
  // Every night passed: its binary is kept as the next night's previous build (A/B confirmation).
  EXPECT_TRUE(core::path_exists(m_dir.file("nightly/opbench.previous")));
  EXPECT_EQ(gates, 2); // the next two are judged; the third against two nights
  EXPECT_NE(last_gate.find("No candidate tonight."), std::string::npos) << last_gate;
  // No false alarm. A case is `same` or, on a loaded machine (ctest -j2 beside it), `unknown`
  // when its quick night was unstable (repetition medians over 3x apart): never slower or faster.
  EXPECT_NE(last_gate.find("0 slower, 0 faster, "), std::string::npos) << last_gate;
  EXPECT_NE(last_gate.find("0 more memory, 0 less, 3 same"), std::string::npos) << last_gate;
  const auto show = opbench("history show --db " + db + " --format json");
  ASSERT_EQ(show.code, 0) << show.err;
  const Json history = Json::parse(show.out);
  ASSERT_EQ(history["runs"].size(), 3u);
  EXPECT_EQ(history["runs"][0]["label"], "abc123");
  EXPECT_EQ(history["series"].size(), 3u);
  ASSERT_EQ(history["change_points"].size(), 3u); // three nights: too few for a change point
  for (const auto& [id, found] : history["change_points"].items())
    EXPECT_TRUE(found.empty()) << id;
  // Adding a night again changes nothing.
  const std::string night = history["runs"][0]["source"];
  EXPECT_NE(opbench("history add --db " + db + " " + night).out.find("was already in the history"),
            std::string::npos);
}

// The A/B confirmation of scripts/nightly.sh: a history made 4x faster than tonight, so tonight's
// case is a candidate; the previous build's binary is this one (the plumbing is what is tested:
// rounds of both binaries, their files, the A/B verdict in the report). Tonight and the history
// are written from one measured time, every repetition alike (OPBENCH_NIGHT_RESULT), so that a
// loaded machine cannot make tonight's case unstable and no candidate; the second look and the
// A/B are measured.
TEST_F(Cli, NightlyScriptConfirmsCandidatesAbAgainstTheBaselineBinary) {
  const std::string first = m_dir.file("first.json");
  ASSERT_EQ(
      opbench("run --config " + k_data + "/tiny.csv --ops add" + k_quick + " --output " + first)
          .code,
      0);
  const Json measured = read_json(first);
  ASSERT_EQ(measured["cases"].size(), 1u);
  const double time = measured["cases"][0]["estimate"]["time"].get<double>();
  auto night = [&](int n, double scale) {
    Json out = measured;
    out["context"]["date"] = "2020-01-0" + std::to_string(n + 1) + "T00:00:00Z";
    for (auto& m : out["cases"][0]["timing"]["repetition_medians"])
      m = time * scale;
    return out.dump();
  };
  const std::string db = m_dir.file("ab/history.sqlite");
  core::create_directories(m_dir.file("ab"));
  for (int n = 0; n < 6; ++n) {
    ASSERT_EQ(opbench("history add --db " + db + " " +
                      m_dir.write("old" + std::to_string(n) + ".json",
                                  night(n, 0.25 * (1 + 0.01 * (n % 3)))))
                  .code,
              0);
  }
  const std::string tonight = m_dir.write("ab/tonight.json", night(7, 1.0));
  const std::string script = std::string(OPBENCH_SOURCE_DIR) + "/scripts/nightly.sh";
  const std::string env =
      "OPBENCH='" + std::string(OPBENCH_BINARY) + "' OPBENCH_BASELINE_BIN='" + OPBENCH_BINARY +
      "' OPBENCH_AB_ROUNDS=3 OPBENCH_NIGHTLY_DIR='" + m_dir.file("ab") + "' OPBENCH_HISTORY='" +
      db + "' OPBENCH_NIGHT_RESULT='" + tonight +
      "' OPBENCH_GATE_ARGS='--min-history 2 --candidate-alpha 0.05' OPBENCH_CONFIRM_ARGS='--warmup "
      "1 --runs 3 --min-time 0 --max-time 0.02 --block-time 0.0001 --process-warmup 0' ";
  const std::string err = m_dir.file("ab.err");
  const int status = std::system((env + script + " --config " + k_data + "/tiny.csv --ops add" +
                                  k_quick + " >'" + m_dir.file("ab.out") + "' 2>'" + err + "'")
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_LE(WEXITSTATUS(status), 1) << testing::read_text(err);
  int looks = 0;
  std::string gate_json, gate_md, ab_file, ab_report;
  for (const std::string& path : core::list_directory(m_dir.file("ab"))) {
    const std::string name = core::filename(path);
    auto ends = [&](const std::string& tail) {
      return name.size() > tail.size() &&
             name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends(".second-look.json"))
      ++looks;
    if (ends(".gate.json"))
      gate_json = path;
    if (ends(".gate.md"))
      gate_md = path;
    if (ends(".ab.json"))
      ab_file = path;
    if (ends(".ab.md"))
      ab_report = path;
  }
  EXPECT_EQ(looks,
            1); // 4x slower tonight: a second look with the night's own settings, then a candidate
  // The candidate measured by `opbench ab`: the previous build (here the same binary) against
  // tonight's, 3 rounds, a fresh process of each side in each.
  ASSERT_FALSE(ab_file.empty()) << testing::read_text(err);
  const Json ab = read_json(ab_file);
  EXPECT_EQ(ab["settings"]["rounds_done"], 3) << ab.dump();
  ASSERT_EQ(ab["cases"].size(), 1u);
  EXPECT_EQ(ab["cases"][0]["base"].size(), 3u);
  EXPECT_EQ(ab["cases"][0]["new"].size(), 3u);
  EXPECT_EQ(ab["runs"].size(), 6u);
  EXPECT_FALSE(testing::read_text(ab_report).empty());
  ASSERT_FALSE(gate_json.empty()) << testing::read_text(err);
  const Json gate = read_json(gate_json);
  EXPECT_TRUE(gate["second_look_taken"].get<bool>()) << gate.dump();
  EXPECT_EQ(gate["counts"]["second_looks"], 1) << gate.dump();
  EXPECT_EQ(gate["counts"]["candidates"], 1) << gate.dump();
  EXPECT_GT(gate["cases"][0]["look_ratio"].get<double>(), 2.0) << gate.dump();
  EXPECT_EQ(gate["confirmation"], "a/b against the previous build");
  // The same code on both sides: the 4x move was not the build's.
  EXPECT_EQ(gate["cases"][0]["verdict"], "same") << gate.dump();
  const std::string reason = gate["cases"][0]["reason"];
  EXPECT_NE(reason.find("not confirmed A/B against the previous build (x"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find(" over 3 rounds)"), std::string::npos) << reason;
  EXPECT_NE(testing::read_text(gate_md).find("confirmed A/B against the previous build's binary"),
            std::string::npos);
}

TEST_F(Cli, GateJudgesEveryNightWithTonightsEstimator) {
  // Five nights recorded with --estimator min (the default until 2026-11-25), tonight the same
  // repetition medians with fastest-third: tonight's time is 10% over the nights' stored times by
  // the estimators' difference alone, and the gate makes every night's value again with
  // tonight's estimator from its stored repetition medians, so nothing moved.
  Json base = read_json(k_data + "/compare/base.json");
  const std::vector<double> shape = {1.0, 1.2, 1.25, 1.3, 1.35, 1.4}; // fastest-third: 1.1
  auto night = [&](int n, const std::string& estimator, double noise) {
    Json out = base;
    out["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    out["context"]["estimator"] = estimator;
    out["context"]["repetitions"] = 6;
    for (auto& c : out["cases"]) {
      const double t =
          c["stats"]["median"].get<double>() * noise; // (base.json predates `estimate`)
      Json medians = Json::array();
      for (double f : shape)
        medians.push_back(t * f);
      c["timing"]["repetition_medians"] = medians;
      c["estimate"] = {
          {"unit", "s"},      {"estimator", estimator}, {"time", estimator == "min" ? t : t * 1.1},
          {"repetitions", 6}, {"median", t * 1.275},    {"low", t},
          {"high", t * 1.4},  {"coverage", 0.96875},    {"spread", 0.2}};
    }
    return m_dir.write("night-" + estimator + std::to_string(n) + ".json", out.dump());
  };
  const std::string db = m_dir.file("estimators.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n)
    ASSERT_EQ(opbench("history add --db " + db + " " + night(n, "min", noise[n])).code, 0);
  const auto r =
      opbench("compare --history " + db + " " + night(8, "fastest-third", 1.0) + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const Json gate = Json::parse(r.out);
  EXPECT_EQ(gate["counts"]["candidates"], 0) << r.out;
  EXPECT_EQ(gate["counts"]["slower"], 0) << r.out;
  // The trend of `history show` is made the same way: with the newest night's estimator, every
  // stored night at tonight's level, and what each recorded beside it.
  ASSERT_EQ(opbench("history add --db " + db + " " + night(8, "fastest-third", 1.0)).code, 0);
  const auto shown = opbench("history show --db " + db + " --format json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  const Json trends = Json::parse(shown.out);
  ASSERT_FALSE(trends["series"].empty());
  for (const auto& [id, points] : trends["series"].items()) {
    ASSERT_EQ(points.size(), 6u) << id;
    const double tonight = points.back()["time"].get<double>();
    for (std::size_t n = 0; n < 5; ++n) {
      EXPECT_EQ(points[n]["estimator"], "fastest-third") << id;
      EXPECT_EQ(points[n]["recorded"]["estimator"], "min") << id;
      EXPECT_NEAR(points[n]["time"].get<double>() / tonight, noise[n], 1e-9) << id;
      EXPECT_NEAR(points[n]["recorded"]["time"].get<double>() / tonight, noise[n] / 1.1, 1e-9)
          << id;
    }
  }
  const std::string id = trends["series"].begin().key();
  const auto as_min = opbench("history show --db " + db + " --case '" + id + "' --estimator min");
  ASSERT_EQ(as_min.code, 0) << as_min.err;
  EXPECT_NE(as_min.out.find("Each run's time: `min` over"), std::string::npos) << as_min.out;
  EXPECT_NE(as_min.out.find("| fastest-third: "), std::string::npos)
      << as_min.out; // tonight's, as recorded
  EXPECT_NE(opbench("history show --db " + db + " --estimator mean").code, 0);
}

TEST_F(Cli, GateJudgesACaseOnlyAgainstNightsThatCalledItTheSameWay) {
  // Five nights of base.json's cases (called boxed); tonight the first case is called typed, 30%
  // faster by what the boxed call cost, and the second is called boxed at twice its time. The
  // typed case has no history called its way: unknown, saying which nights were left out; the
  // boxed one is judged as before (slower: a candidate).
  const Json base = read_json(k_data + "/compare/base.json");
  ASSERT_GE(base["cases"].size(), 2u);
  auto night = [&](int n, double first, double second, const std::string& first_path) {
    Json out = base;
    out["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    for (std::size_t i = 0; i < out["cases"].size(); ++i) {
      auto& c = out["cases"][i];
      const double f = i == 0 ? first : i == 1 ? second : 1.0;
      const double t = c["stats"]["median"].get<double>() * f;
      c["stats"]["median"] = t;
      c["timing"]["repetition_medians"] = Json::array({t, t, t});
      c["timing"]["call_path"] = i == 0 ? first_path : "boxed";
    }
    return m_dir.write("called-" + std::to_string(n) + ".json", out.dump());
  };
  const std::string db = m_dir.file("called.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n) {
    ASSERT_EQ(opbench("history add --db " + db + " " + night(n, noise[n], noise[n], "boxed")).code,
              0);
  }
  const std::string tonight = night(8, 0.7, 2.0, "typed");
  const auto r = opbench("compare --history " + db + " " + tonight + " --format json");
  const Json gate = Json::parse(r.out);
  const std::string first = base["cases"][0]["case_id"], second = base["cases"][1]["case_id"];
  for (const auto& c : gate["cases"]) {
    if (c["case_id"] == first) {
      EXPECT_EQ(c["verdict"], "unknown") << c.dump();
      EXPECT_EQ(c["nights"], 0) << c.dump();
      EXPECT_EQ(c["reason"], "history has 0 night(s), 5 needed; called typed tonight; left out: 5 "
                             "night(s) called boxed")
          << c.dump();
    } else if (c["case_id"] == second) {
      EXPECT_EQ(c["nights"], 5) << c.dump();
      EXPECT_TRUE(c["candidate"].get<bool>()) << c.dump();
    }
  }
  EXPECT_EQ(gate["counts"]["called_otherwise"], 1) << r.out;
  const auto md = opbench("compare --history " + db + " " + tonight);
  EXPECT_NE(md.out.find("unknown (1 called or measured another way than their history: opbench's "
                        "change, not the code's)"),
            std::string::npos)
      << md.out;
  // The trend says where the call path changed.
  ASSERT_EQ(opbench("history add --db " + db + " " + tonight).code, 0);
  const auto shown = opbench("history show --db " + db + " --case '" + first + "'");
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("called typed from here (was boxed)"), std::string::npos) << shown.out;
  const auto json = opbench("history show --db " + db + " --case '" + first + "' --format json");
  const Json trend = Json::parse(json.out);
  EXPECT_EQ(trend["series"][first].back()["call_path"], "typed") << json.out;
  ASSERT_EQ(trend["call_path_changes"][first].size(), 1u) << json.out;
  EXPECT_EQ(trend["call_path_changes"][first][0]["index"], 5) << json.out;
  EXPECT_EQ(trend["call_path_changes"][first][0]["before"], "boxed") << json.out;
}

TEST_F(Cli, GateLeavesOutNightsMeasuredOnAnotherHostAllocator) {
  // Five nights measured on glibc's heap, then one that records no allocator (an older opbench);
  // tonight on jemalloc, every case 9% faster by the allocator alone. Only the night without a
  // record is a baseline: too little history, unknown, saying why, and a note names both
  // allocators. Tonight on glibc again: the five nights are its history once more.
  const Json base = read_json(k_data + "/compare/base.json");
  const std::string glibc = "glibc malloc, M_MMAP_MAX=0; LibTorch CPU blocks on THP: yes";
  const std::string jemalloc = "jemalloc 5.3.0, MALLOC_CONF=thp:always";
  auto night = [&](int n, double factor, const std::string& allocator) {
    Json out = base;
    out["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    if (allocator.empty())
      out["context"].erase("host_allocator");
    else
      out["context"]["host_allocator"] = allocator;
    for (auto& c : out["cases"]) {
      const double t = c["stats"]["median"].get<double>() * factor;
      c["stats"]["median"] = t;
      c["timing"]["repetition_medians"] = Json::array({t, t, t});
    }
    return m_dir.write("allocator-" + std::to_string(n) + ".json", out.dump());
  };
  const std::string db = m_dir.file("allocator.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n)
    ASSERT_EQ(opbench("history add --db " + db + " " + night(n, noise[n], glibc)).code, 0);
  ASSERT_EQ(opbench("history add --db " + db + " " + night(5, 1.0, "")).code, 0);
  const auto r =
      opbench("compare --history " + db + " " + night(8, 0.91, jemalloc) + " --format json");
  const Json gate = Json::parse(r.out);
  ASSERT_FALSE(gate["cases"].empty()) << r.out;
  for (const auto& c : gate["cases"]) {
    EXPECT_EQ(c["verdict"], "unknown") << c.dump();
    EXPECT_EQ(c["nights"], 1) << c.dump();
    EXPECT_EQ(c["reason"], "history has 1 night(s), 5 needed; left out: 5 night(s) measured on "
                           "another host allocator")
        << c.dump();
  }
  EXPECT_EQ(gate["counts"]["called_otherwise"], gate["cases"].size()) << r.out;
  ASSERT_EQ(gate["notes"].size(), 1u) << r.out;
  const std::string note = gate["notes"][0];
  EXPECT_NE(note.find("(" + glibc + ")"), std::string::npos) << note;
  EXPECT_NE(note.find("tonight measured on " + jemalloc), std::string::npos) << note;
  const auto md = opbench("compare --history " + db + " " + night(8, 0.91, jemalloc));
  EXPECT_NE(md.out.find("- **note**: nights of the history measured on another host allocator"),
            std::string::npos)
      << md.out;
  const auto again =
      opbench("compare --history " + db + " " + night(7, 1.0, glibc) + " --format json");
  const Json judged = Json::parse(again.out);
  EXPECT_TRUE(judged["notes"].empty()) << again.out;
  for (const auto& c : judged["cases"])
    EXPECT_EQ(c["nights"], 6) << c.dump();
}

TEST_F(Cli, GateTellsADeviceThatRanSlowerTonightFromSlowerCode) {
  // Five nights with the device at 1980 MHz (history version 7 keeps each case's lowest clock),
  // then tonight every case 20% slower. At 1980 MHz again: candidates, as the gate makes them. At
  // 1584 MHz (the device power-capped): no candidate says slower code; each says the device moved.
  const Json base = read_json(k_data + "/compare/base.json");
  auto night = [&](int n, double factor, double mhz) {
    Json out = base;
    out["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    const Json reading = {{"sm_clock_mhz", mhz}, {"memory_clock_mhz", 2619}, {"reason_bits", 0}};
    for (auto& c : out["cases"]) {
      const double t = c["stats"]["median"].get<double>() * factor;
      c["stats"]["median"] = t;
      c["timing"]["repetition_medians"] = Json::array({t, t, t});
      c["timing"]["repetition_device_state"] =
          Json::array({{{"start", reading}, {"end", reading}},
                       {{"start", reading}, {"end", reading}},
                       {{"start", reading}, {"end", reading}}});
    }
    return m_dir.write("clock-" + std::to_string(n) + ".json", out.dump());
  };
  const std::string db = m_dir.file("clock.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n)
    ASSERT_EQ(opbench("history add --db " + db + " " + night(n, noise[n], 1980)).code, 0);
  const Json same_clock = Json::parse(
      opbench("compare --history " + db + " " + night(7, 1.2, 1975) + " --format json").out);
  ASSERT_FALSE(same_clock["cases"].empty());
  for (const auto& c : same_clock["cases"]) {
    EXPECT_EQ(c["reason"].get<std::string>().rfind("candidate: slower", 0), 0u) << c.dump();
  }
  const Json capped = Json::parse(
      opbench("compare --history " + db + " " + night(7, 1.2, 1584) + " --format json").out);
  ASSERT_EQ(capped["cases"].size(), same_clock["cases"].size());
  for (const auto& c : capped["cases"]) {
    EXPECT_EQ(c["verdict"], "unknown") << c.dump();
    EXPECT_NE(c["reason"].get<std::string>().find(
                  "while the device moved (its SM clock read 1584 MHz tonight, -20% from its "
                  "nights' usual 1980 MHz): not a verdict on the code"),
              std::string::npos)
        << c.dump();
  }
}

TEST_F(Cli, CompareWritesJunitThatHoldsToTheSchema) {
  // mul is 20% slower in slow_mul.json: one failure; the cases compare cannot judge are skipped
  // with their reason; the exit code is compare's.
  const std::string junit = m_dir.file("compare.xml");
  const auto r = opbench("compare " + k_data + "/compare/base.json " + k_data +
                         "/compare/slow_mul.json --format junit --output " + junit);
  EXPECT_EQ(r.code, 1) << r.err;
  const std::string xml = testing::read_text(junit);
  EXPECT_NE(xml.find("<testsuite name=\"opbench compare\" tests=\"5\" failures=\"1\" errors=\"0\" "
                     "skipped=\"3\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"slower\" message=\"slower: x1.200 (p 0.00794 &lt; 0.05; 95% "
                     "interval [x1.108, x1.300]), past the 5.0% threshold\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped>unknown: cannot tell: "), std::string::npos) << xml;
  EXPECT_EQ(junit_check(junit), 0);
  // The checker is no rubber stamp: a <skipped> with an attribute breaks the schema.
  const std::string wrong =
      m_dir.write("wrong.xml", "<testsuites><testsuite name=\"s\" tests=\"1\">"
                               "<testcase name=\"c\"><skipped message=\"m\"/>"
                               "</testcase></testsuite></testsuites>");
  EXPECT_NE(junit_check(wrong), 0);
}

TEST_F(Cli, GateConfirmsOnlyWhatTheSecondMeasurementShows) {
  // A history of five nights, made from one real result with its repetition medians scaled by
  // known noise;
  // tonight mul is 30% slower, and so is its confirmation, while add's confirmation is back to
  // normal.
  const std::string base_file = k_data + "/compare/base.json";
  Json base = read_json(base_file);
  const std::string db = m_dir.file("h.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n) {
    Json night = base;
    night["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    for (auto& c : night["cases"]) {
      for (auto& m : c["timing"]["repetition_medians"])
        m = m.get<double>() * noise[n];
    }
    const std::string file = m_dir.write("night" + std::to_string(n) + ".json", night.dump());
    ASSERT_EQ(opbench("history add --db " + db + " " + file).code, 0);
  }
  // Tonight and its re-measurements: each file one process (as nightly.sh's confirmation runs,
  // `--processes 1`), so a file is one value per case in an A/B.
  auto scaled = [&](const std::string& name, double add, double mul) {
    Json night = base;
    night["context"]["date"] = "2026-11-09T00:00:00Z";
    night["context"]["isolate"] = false;
    night["context"]["processes"] = 1;
    for (auto& c : night["cases"]) {
      const std::string id = c["case_id"];
      const double f = id.rfind("add/", 0) == 0 ? add : id.rfind("mul/", 0) == 0 ? mul : 1.0;
      for (auto& m : c["timing"]["repetition_medians"])
        m = m.get<double>() * f;
    }
    return m_dir.write(name, night.dump());
  };
  const std::string tonight = scaled("tonight.json", 1.3, 1.3);
  const std::string candidates = m_dir.file("candidates.txt");
  const auto first = opbench("compare --history " + db + " " + tonight +
                             " --format json --candidates-out " + candidates);
  ASSERT_EQ(first.code, 0) << first.err; // candidates are no alert
  EXPECT_EQ(Json::parse(first.out)["counts"]["candidates"], 2);
  const std::string listed = testing::read_text(candidates);
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 2) << listed;
  EXPECT_NE(listed.find("mul/"), std::string::npos) << listed;
  const std::string again = scaled("again.json", 1.0, 1.3);
  const auto second =
      opbench("compare --history " + db + " " + tonight + " --confirm " + again + " --format json");
  EXPECT_EQ(second.code, 1) << second.err;
  const Json gate = Json::parse(second.out);
  EXPECT_EQ(gate["counts"]["slower"], 1);
  for (const auto& c : gate["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0)
      EXPECT_EQ(c["verdict"], "slower") << c.dump();
    if (id.rfind("add/", 0) == 0)
      EXPECT_EQ(c["reason"], "not confirmed") << c.dump();
  }
  const auto md = opbench("compare --history " + db + " " + tonight + " --confirm " + again);
  EXPECT_NE(md.out.find("## Candidates"), std::string::npos) << md.out;
  // JUnit for CI: the confirmed slower case fails, the others pass; the file holds to the schema.
  const std::string junit = m_dir.file("gate.xml");
  EXPECT_EQ(opbench("compare --history " + db + " " + tonight + " --confirm " + again +
                    " --format junit --output " + junit)
                .code,
            1);
  const std::string xml = testing::read_text(junit);
  EXPECT_EQ(xml.find("<failure type=\"slower\" message=\"slower: x1.3"), xml.rfind("<failure "))
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"opbench.add\" name=\"add/"), std::string::npos) << xml;
  EXPECT_EQ(junit_check(junit), 0);
  // Without a confirmation a candidate is no verdict either way: `unknown`, never `same`.
  const Json unconfirmed = Json::parse(first.out);
  for (const auto& c : unconfirmed["cases"]) {
    if (c["candidate"].get<bool>()) {
      EXPECT_EQ(c["verdict"], "unknown") << c.dump();
      EXPECT_NE(c["reason"].get<std::string>().find(", not confirmed"), std::string::npos)
          << c.dump();
    }
  }

  // The history heals: the night whose mul the gate judged slower is added with its report, and
  // mul's value of it is held out of the baselines; the next night, back to normal (the fix), is
  // judged against the five nights before the regression: `same`, not blind.
  const std::string report = m_dir.file("gate.json");
  ASSERT_EQ(opbench("compare --history " + db + " " + tonight + " --confirm " + again +
                    " --format json --output " + report)
                .code,
            1);
  const auto added = opbench("history add --db " + db + " " + tonight + " --gate " + report);
  ASSERT_EQ(added.code, 0) << added.err;
  EXPECT_NE(added.out.find("held out of the baselines (judged slower, x1.3"), std::string::npos)
      << added.out;
  Json fixed = read_json(scaled("fixed.json", 1.0, 1.0));
  fixed["context"]["date"] = "2026-11-10T00:00:00Z";
  const std::string fixed_file = m_dir.write("fixed-night.json", fixed.dump());
  const auto healed = opbench("compare --history " + db + " " + fixed_file + " --format json");
  EXPECT_EQ(healed.code, 0) << healed.err;
  const Json healed_json = Json::parse(healed.out);
  for (const auto& c : healed_json["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0) {
      EXPECT_EQ(c["verdict"], "same") << c.dump();
      EXPECT_EQ(c["held_out"], 1) << c.dump();
      EXPECT_EQ(c["nights"], 5) << c.dump();
    }
    if (id.rfind("add/", 0) == 0) // its slow night was not confirmed: it is history
      EXPECT_EQ(c["held_out"], 0) << c.dump();
  }
  const auto show = opbench("history show --db " + db);
  EXPECT_NE(show.out.find("| gate | the gate judged it slower (x1.3"), std::string::npos)
      << show.out;
  // Taken back by hand, the slow night is in the baseline again.
  const auto include = opbench("history include --db " + db + " --id 1");
  EXPECT_EQ(include.code, 0) << include.err;
  const Json included =
      Json::parse(opbench("compare --history " + db + " " + fixed_file + " --format json").out);
  for (const auto& c : included["cases"]) {
    if (c["case_id"].get<std::string>().rfind("mul/", 0) == 0)
      EXPECT_EQ(c["held_out"], 0) << c.dump();
  }

  // A/B against the previous build: `opbench ab`'s file of the two candidates, the previous
  // build (base) against tonight's (new), paired rounds. Tonight's build has mul 30% slower than
  // the previous one; add is the same in both.
  const results::ResultSet measured = results::load_results(tonight);
  auto ab_file = [&](const std::string& name, std::size_t rounds) {
    const double jitter[] = {1.0, 1.01, 0.99, 1.005, 0.995};
    Json cases = Json::array();
    for (const auto& r : measured.cases) {
      const bool mul = r.c.case_id.rfind("mul/", 0) == 0;
      Json base = Json::array(), now = Json::array();
      for (std::size_t k = 0; k < rounds; ++k) {
        base.push_back(r.estimate.time * jitter[k % 5]);
        now.push_back(r.estimate.time * jitter[(k + 2) % 5] * (mul ? 1.3 : 1.0));
      }
      cases.push_back({{"case", results::to_json(r.c)}, {"base", base}, {"new", now}});
    }
    return m_dir.write(
        name, Json{{"kind", "opbench-ab"}, {"schema_version", 1}, {"cases", cases}}.dump());
  };
  // Two rounds are too few to decide: the candidates stay unknown.
  const auto two = opbench("compare --history " + db + " " + tonight + " --confirm-ab " +
                           ab_file("two.ab.json", 2) + " --format json");
  EXPECT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(Json::parse(two.out)["counts"]["unknown"], 2) << two.out;
  const std::string five = ab_file("five.ab.json", 5);
  const auto ab = opbench("compare --history " + db + " " + tonight + " --confirm-ab " + five +
                          " --format json");
  EXPECT_EQ(ab.code, 1) << ab.err;
  const Json abgate = Json::parse(ab.out);
  EXPECT_EQ(abgate["confirmation"], "a/b against the previous build");
  EXPECT_EQ(abgate["counts"]["slower"], 1);
  for (const auto& c : abgate["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0) {
      EXPECT_EQ(c["reason"], "confirmed A/B against the previous build (x1.298 over 5 rounds)")
          << c.dump();
    }
    if (id.rfind("add/", 0) == 0) {
      EXPECT_EQ(c["reason"], "not confirmed A/B against the previous build (x0.998 over 5 rounds)")
          << c.dump();
    }
  }
  const auto twice = opbench("compare --history " + db + " " + tonight + " --confirm-ab " + five +
                             " --confirm " + tonight);
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("one confirmation: --confirm"), std::string::npos) << twice.err;
  const auto not_ab =
      opbench("compare --history " + db + " " + tonight + " --confirm-ab " + tonight);
  EXPECT_EQ(not_ab.code, 2);
  EXPECT_NE(not_ab.err.find(tonight + ": not an opbench ab file"), std::string::npos) << not_ab.err;
  const auto adjusted = opbench("compare --history " + db + " " + tonight + " --adjust-speed");
  EXPECT_EQ(adjusted.code, 2);
  EXPECT_NE(adjusted.err.find("--adjust-speed goes with two files"), std::string::npos)
      << adjusted.err;

  // The second look: mul 4% slower tonight (p about 0.01 against these five nights: a second
  // look, no candidate) and 8% in the second look (together a candidate); add 30% slower tonight
  // (a candidate alone) and back in the second look (together under the floor).
  const std::string looked = scaled("looked.json", 1.3, 1.04);
  const std::string looks = m_dir.file("looks.txt");
  const auto asked =
      opbench("compare --history " + db + " " + looked + " --format json --looks-out " + looks +
              " --candidates-out " + candidates);
  ASSERT_EQ(asked.code, 0) << asked.err;
  const std::string to_look = testing::read_text(looks);
  EXPECT_EQ(std::count(to_look.begin(), to_look.end(), '\n'), 2) << to_look;
  EXPECT_EQ(Json::parse(asked.out)["counts"]["second_looks"], 2);
  EXPECT_EQ(Json::parse(asked.out)["counts"]["candidates"], 1);
  EXPECT_NE(asked.err.find("2 second look(s) (not taken"), std::string::npos) << asked.err;
  const std::string look2 = scaled("second.json", 1 / 1.3, 1.08);
  const auto both = opbench("compare --history " + db + " " + looked + " --second-look " + look2 +
                            " --format json --candidates-out " + candidates);
  ASSERT_EQ(both.code, 0) << both.err;
  const Json judged = Json::parse(both.out);
  EXPECT_TRUE(judged["second_look_taken"].get<bool>());
  EXPECT_EQ(judged["counts"]["candidates"], 1) << judged.dump();
  EXPECT_EQ(testing::read_text(candidates).rfind("mul/", 0), 0u) << testing::read_text(candidates);
  for (const auto& c : judged["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0) {
      EXPECT_TRUE(c["candidate"].get<bool>()) << c.dump();
      EXPECT_NEAR(c["look_ratio"].get<double>(), std::sqrt(1.04 * 1.08), 0.002) << c.dump();
    }
    if (id.rfind("add/", 0) == 0)
      EXPECT_EQ(c["reason"], "not a candidate after a second look") << c.dump();
  }
  EXPECT_NE(opbench("compare --history " + db + " " + looked + " --second-look " + look2)
                .out.find("both looks"),
            std::string::npos);
  // A second look measured otherwise than tonight cannot be averaged with it.
  Json other = read_json(look2);
  other["context"]["repetitions"] = 99;
  const auto mismatch = opbench("compare --history " + db + " " + looked + " --second-look " +
                                m_dir.write("other-look.json", other.dump()));
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_NE(
      mismatch.err.find("measured differently from tonight's " + looked + " (repetitions 99 vs"),
      std::string::npos)
      << mismatch.err;
}

} // namespace
} // namespace opbench
