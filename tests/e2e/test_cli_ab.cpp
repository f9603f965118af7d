// End-to-end: `opbench ab`, two sides measured in rounds and judged on their pairs (ab/ab.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "cli_fixture.hpp"
#include "gbench_schema.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"

namespace opbench {
namespace {

const std::string k_binary = OPBENCH_BINARY;
const std::string k_ab_quick = " --warmup 1 --runs 3 --min-time 0 --max-time 0.01 "
                               "--block-time 0.0001 --process-warmup 0";
// The verdicts below are judged at a 20% threshold (10% where a 1.5x build must come out slower in
// 8 rounds): these tests run beside others under CTest, and how small a change `ab` tells on this
// machine is bench/ab_goals.sh's to measure, not a test's to assert; a side mixed up or a round
// lost still shows.

class Ab : public Cli {
protected:
  std::string config(const std::string& text) {
    const std::string path = m_dir.file("ab-config.json");
    std::ofstream(path) << text;
    return path;
  }
  // A script that answers --version as `version` says and runs nothing else (exit 3).
  std::string fake_side(const std::string& version) {
    const std::string path = m_dir.file("fake-opbench");
    std::ofstream(path) << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '" << version
                        << "'; exit 0; fi\necho 'no measuring here' >&2\nexit 3\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
};

TEST_F(Ab, AnIdenticalBuildIsNeitherSlowerNorFasterAndEveryRoundIsKept) {
  const std::string cfg = config(R"({"operators": [
      {"op": "exp", "cases": [{"args": {"self": "64x64"}}]},
      {"op": "relu", "cases": [{"args": {"self": "64x64"}}]}]})");
  const std::string out = m_dir.file("ab.json");
  const auto ab = opbench(
      "ab --base-bin " + k_binary + " --new-bin " + k_binary + " --config " + cfg +
      " --threads 1 --rounds 3 --block-cases 1 --side-repetitions 3 --threshold 0.2 --output " +
      out + k_ab_quick);
  ASSERT_TRUE(ab.code == 0 || ab.code == 3) << ab.err;
  EXPECT_NE(ab.out.find("# opbench ab"), std::string::npos) << ab.out;
  EXPECT_NE(ab.err.find("round 3/3"), std::string::npos) << ab.err;
  const Json file = read_json(out);
  EXPECT_EQ(file["kind"], "opbench-ab");
  EXPECT_EQ(file["settings"]["rounds_done"], 3);
  EXPECT_NE(file["sides"]["base"]["version"].get<std::string>().find("(result schema 1)"),
            std::string::npos);
  ASSERT_EQ(file["cases"].size(), 2u);
  for (const auto& c : file["cases"]) {
    ASSERT_EQ(c["base"].size(), 3u) << c.dump();
    ASSERT_EQ(c["new"].size(), 3u) << c.dump();
    for (const auto* side : {"base", "new"}) {
      for (const auto& t : c[side])
        EXPECT_TRUE(t.is_number() && t.get<double>() > 0) << c.dump();
    }
    EXPECT_EQ(c["pairs"], 3);
    EXPECT_NE(c["verdict"], "slower") << c.dump();
    EXPECT_NE(c["verdict"], "faster") << c.dump();
    EXPECT_EQ(c["memory"]["verdict"], "same") << c.dump(); // exact, from round 1
  }
  EXPECT_TRUE(file["notes"].empty()) << file["notes"].dump(); // one build: one setup
  // export reads the A/B file back: the same verdicts, judged again from its times.
  const auto md = opbench("export --input " + out + " --format md");
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out, ab.out);
  const auto gbench = opbench("export --input " + out + " --format gbench");
  EXPECT_EQ(gbench.code, 2);
  EXPECT_NE(gbench.err.find("exports as md, csv, json, junit or html, or one side at a time "
                            "(--side base|new) as gbench"),
            std::string::npos)
      << gbench.err;
  // One side as google/benchmark's JSON: per case one iteration entry per round, its time the
  // one the verdict paired, then the aggregates (what compare.py takes two of).
  for (const std::string side : {"base", "new"}) {
    const auto one = opbench("export --input " + out + " --format gbench --side " + side);
    ASSERT_EQ(one.code, 0) << one.err;
    const Json doc = Json::parse(one.out);
    EXPECT_EQ(testing::gbench_schema_problems(doc), std::vector<std::string>{});
    EXPECT_EQ(doc["context"]["opbench_ab_side"], side + " side of " + out + ", 3 rounds")
        << doc["context"].dump();
    for (const auto& c : file["cases"]) {
      const std::string id = c["case"]["case_id"];
      std::vector<double> rounds;
      std::size_t aggregates = 0;
      for (const auto& b : doc["benchmarks"]) {
        if (b["run_name"] != id)
          continue;
        if (b["run_type"] == "aggregate") {
          ++aggregates;
          continue;
        }
        EXPECT_EQ(b["repetitions"], 3) << b.dump();
        EXPECT_GE(b["iterations"].get<std::int64_t>(), 3) << b.dump(); // --runs 3 blocks at least
        rounds.push_back(b["real_time"].get<double>());
      }
      ASSERT_EQ(rounds.size(), 3u) << id;
      EXPECT_EQ(aggregates, 4u) << id;
      for (std::size_t k = 0; k < 3; ++k)
        EXPECT_NEAR(rounds[k], c[side][k].get<double>() * 1e9, 1e-6 * rounds[k]) << id;
    }
  }
  const auto not_ab = opbench("export --input " + file["runs"][0]["result"].get<std::string>() +
                              " --format gbench --side base");
  EXPECT_EQ(not_ab.code, 2);
  EXPECT_NE(not_ab.err.find("--side goes with an A/B file"), std::string::npos) << not_ab.err;
  // The HTML page: every case with its verdict and its rounds drawn.
  const auto html = opbench("export --input " + out + " --format html");
  ASSERT_EQ(html.code, 0) << html.err;
  EXPECT_EQ(html.out.rfind("<!doctype html>", 0), 0u);
  for (const auto& c : file["cases"]) {
    const std::string id = c["case"]["case_id"];
    EXPECT_NE(html.out.find(core::xml_escape(id)), std::string::npos) << id;
  }
  std::size_t drawings = 0;
  for (auto at = html.out.find("<svg"); at != std::string::npos; at = html.out.find("<svg", at + 1))
    ++drawings;
  EXPECT_EQ(drawings, 2u);
  EXPECT_NE(html.out.find("<title>round 3: "), std::string::npos); // every round's ratio drawn
  // 3 rounds x 2 blocks x 2 sides, each a run whose result file is kept; each measured its case
  // in --side-repetitions repetitions, and the round's time is the fastest one's median.
  ASSERT_EQ(file["runs"].size(), 12u);
  for (const auto& r : file["runs"]) {
    EXPECT_EQ(r["how"], "") << r.dump();
    const Json run = read_json(r["result"].get<std::string>());
    ASSERT_EQ(run["cases"].size(), 1u) << r.dump();
    const Json& measured = run["cases"][0];
    const std::vector<double> medians = measured["timing"]["repetition_medians"];
    ASSERT_EQ(medians.size(), 3u) << measured["timing"].dump();
    for (const auto& c : file["cases"]) {
      if (c["case"]["case_id"] == measured["case_id"])
        EXPECT_DOUBLE_EQ(c[r["side"].get<std::string>()][r["round"].get<int>() - 1].get<double>(),
                         *std::min_element(medians.begin(), medians.end()))
            << c.dump();
    }
  }
  // A side is read from its runs' files: one gone is named, nothing written.
  const std::string gone = file["runs"][0]["result"];
  ASSERT_EQ(std::rename(gone.c_str(), (gone + ".moved").c_str()), 0);
  const auto missing = opbench("export --input " + out + " --format gbench --side " +
                               file["runs"][0]["side"].get<std::string>());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find(gone + ", is not there"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty()) << missing.out;
}

// Two opbench builds can measure in other setups: here the base side's processes on glibc's
// malloc (no jemalloc for it), the new side's on jemalloc. The A/B says so beside its verdicts.
TEST_F(Ab, SidesWhoseSetupsDifferAreNoted) {
  const std::string base = m_dir.file("glibc-opbench");
  std::ofstream(base) << "#!/bin/sh\nOPBENCH_JEMALLOC=none exec '" << k_binary << "' \"$@\"\n";
  ::chmod(base.c_str(), 0755);
  const std::string cfg =
      config(R"({"operators": [{"op": "relu", "cases": [{"args": {"self": "64x64"}}]}]})");
  const std::string out = m_dir.file("ab.json");
  const auto ab = opbench("ab --base-bin " + base + " --new-bin " + k_binary + " --config " + cfg +
                          " --threads 1 --rounds 2 --threshold 0.2 --output " + out + k_ab_quick);
  ASSERT_TRUE(ab.code == 0 || ab.code == 3) << ab.err;
  const Json file = read_json(out);
  const std::string theirs = file["sides"]["new"]["context"].value("host_allocator", "");
  if (theirs.find("; no jemalloc found") != std::string::npos)
    GTEST_SKIP() << theirs << " (scripts/setup.sh installs Debian's libjemalloc2)";
  ASSERT_EQ(file["notes"].size(), 1u) << file.dump();
  const std::string note = file["notes"][0];
  EXPECT_EQ(note.rfind("the two sides' setups differ (host allocator: glibc malloc", 0), 0u)
      << note;
  EXPECT_NE(note.find(" in BASE, jemalloc "), std::string::npos) << note;
  EXPECT_NE(ab.err.find("opbench ab: note: " + note), std::string::npos) << ab.err;
  EXPECT_NE(ab.out.find("- **note**: " + note), std::string::npos) << ab.out;
}

// --schedule duet: a block's two side runs at once, each on its own half of the CPUs, the halves
// drawn per round and block; a case asking for more threads than a half has is refused first.
TEST_F(Ab, ADuetRunsBothSidesAtOnceOnDisjointCpus) {
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 2)
    GTEST_SKIP() << "a duet needs 2 CPUs";
  const std::string cfg = config(R"({"operators": [
      {"op": "exp", "cases": [{"args": {"self": "64x64"}}]}]})");
  const std::string out = m_dir.file("duet.json");
  const std::string sides = " --base-bin " + k_binary + " --new-bin " + k_binary;
  const auto ab =
      opbench("ab" + sides + " --config " + cfg +
              " --threads 1 --rounds 4 --stop-after 0 --schedule duet --threshold 0.2 --output " +
              out + k_ab_quick);
  ASSERT_TRUE(ab.code == 0 || ab.code == 3) << ab.err;
  EXPECT_NE(ab.out.find("both sides at once on disjoint halves of the CPUs (duet)"),
            std::string::npos)
      << ab.out;
  const Json file = read_json(out);
  EXPECT_EQ(file["settings"]["schedule"], "duet");
  const Json& c = file["cases"][0];
  EXPECT_EQ(c["pairs"], 4) << c.dump();
  EXPECT_NE(c["verdict"], "slower") << c.dump();
  EXPECT_NE(c["verdict"], "faster") << c.dump();
  ASSERT_EQ(file["runs"].size(), 8u);
  for (std::size_t k = 0; k < 8; k += 2) {
    const Json& a = file["runs"][k];
    const Json& b = file["runs"][k + 1];
    EXPECT_EQ(a["round"], b["round"]);
    const std::vector<int> ca = a["cpus"], cb = b["cpus"];
    ASSERT_FALSE(ca.empty());
    ASSERT_FALSE(cb.empty());
    for (int cpu : ca)
      EXPECT_EQ(std::count(cb.begin(), cb.end(), cpu), 0) << a.dump() << b.dump();
    EXPECT_EQ(a["seconds"], b["seconds"]); // one wall time: they ran together
  }
  // A case's threads must fit in a half; refused before anything is measured.
  const auto wide =
      opbench("ab" + sides + " --config " + cfg + " --threads " + std::to_string(cpus) +
              " --schedule duet --output " + m_dir.file("wide.json") + k_ab_quick);
  EXPECT_EQ(wide.code, 2) << wide.err;
  EXPECT_NE(wide.err.find("asks for " + std::to_string(cpus) + " threads, a side has"),
            std::string::npos)
      << wide.err;
  EXPECT_FALSE(core::path_exists(m_dir.file("wide.json")));
}

TEST_F(Ab, ALibrarysSlowerBuildIsSlowerAndTheAtenCaseBesideItIsNot) {
  const std::string cfg = config(R"({"operators": [
      {"op": "opbench_test::exp_extra", "cases": [{"args": {"self": "256x1024"}}]},
      {"op": "exp", "cases": [{"args": {"self": "256x1024"}}]}]})");
  const std::string out = m_dir.file("ab.json");
  // Steadier than k_ab_quick: a case's time in a round is the fastest of only two repetitions.
  const auto ab = opbench(
      "ab --base-library " + std::string(OPBENCH_EXTRA_WORK) + " --new-library " +
      std::string(OPBENCH_EXTRA_WORK_SLOW) + " --config " + cfg +
      " --threads 1 --rounds 8 --stop-after 4 --threshold 0.1 --precision 0.08 --output " + out +
      " --format csv --warmup 2 --runs 5 --min-time 0.01 --max-time 0.03 --block-time 0.0005 "
      "--process-warmup 0.1");
  EXPECT_EQ(ab.code, 1) << ab.err << ab.out;
  EXPECT_NE(ab.out.find("case_id,verdict,pairs"), std::string::npos) << ab.out;
  const Json file = read_json(out);
  ASSERT_EQ(file["cases"].size(), 2u);
  const bool extra_first = file["cases"][0]["case"]["operator"] == "opbench_test::exp_extra";
  const Json& extra = file["cases"][extra_first ? 0 : 1];
  EXPECT_EQ(extra["case"]["operator"], "opbench_test::exp_extra");
  EXPECT_EQ(extra["verdict"], "slower") << extra.dump();
  EXPECT_GT(extra["ratio"].get<double>(), 1.2) << extra.dump();
  EXPECT_EQ(extra["memory"]["verdict"], "more memory") << extra.dump(); // its 64 KiB buffer
  const Json& aten = file["cases"][extra_first ? 1 : 0];
  EXPECT_NE(aten["verdict"], "slower") << aten.dump();
  EXPECT_EQ(aten["memory"]["verdict"], "same") << aten.dump();
  // Adaptive rounds: a case stops only once found the same within 8%, after 4 pairs at least;
  // its later rounds are null on both sides. The slower case is measured in every round.
  const int rounds = file["settings"]["rounds_done"];
  EXPECT_EQ(extra["pairs"], rounds) << extra.dump();
  for (const auto& c : file["cases"]) {
    if (c["pairs"] < rounds) {
      EXPECT_GE(c["pairs"], 4) << c.dump();
      EXPECT_EQ(c["verdict"], "same") << c.dump();
      EXPECT_LE(c["seeable_change"].get<double>(), 0.08) << c.dump();
      EXPECT_TRUE(c["base"][rounds - 1].is_null() && c["new"][rounds - 1].is_null()) << c.dump();
    }
  }
  // Each side loaded its own build: the plans name it.
  EXPECT_EQ(file["sides"]["new"]["libraries"][0], OPBENCH_EXTRA_WORK_SLOW);
  EXPECT_EQ(file["sides"]["base"]["libraries"][0], OPBENCH_EXTRA_WORK);
}

TEST_F(Ab, ASideThatIsNoOpbenchOrReadsAnotherSchemaIsRefusedBeforeMeasuring) {
  const std::string cfg =
      config(R"({"operators": [{"op": "exp", "cases": [{"args": {"self": "64"}}]}]})");
  const auto not_opbench =
      opbench("ab --base-bin /bin/true --new-bin " + k_binary + " --config " + cfg + k_ab_quick);
  EXPECT_EQ(not_opbench.code, 2);
  EXPECT_NE(not_opbench.err.find("--base-bin /"), std::string::npos) << not_opbench.err;
  EXPECT_NE(not_opbench.err.find("true: not an opbench (its --version said 'true"),
            std::string::npos)
      << not_opbench.err;
  const auto newer =
      opbench("ab --base-bin " + k_binary + " --new-bin " +
              fake_side("opbench 9.0 (result schema 99)") + " --config " + cfg + k_ab_quick);
  EXPECT_EQ(newer.code, 2);
  EXPECT_NE(newer.err.find("it writes result schema 99, this opbench reads up to 1"),
            std::string::npos)
      << newer.err;
  EXPECT_EQ(newer.err.find("round"), std::string::npos) << newer.err; // nothing measured
  const auto one_side = opbench("ab --config " + cfg);
  EXPECT_EQ(one_side.code, 2);
  EXPECT_NE(one_side.err.find("ab needs two sides"), std::string::npos) << one_side.err;
}

TEST_F(Ab, ASideWhoseRunsMeasureNothingIsNamedAndNothingIsJudged) {
  const std::string cfg =
      config(R"({"operators": [{"op": "exp", "cases": [{"args": {"self": "64"}}]}]})");
  const std::string out = m_dir.file("ab.json");
  const auto ab =
      opbench("ab --base-bin " + k_binary + " --new-bin " + fake_side("opbench 0.1.0") +
              " --config " + cfg + " --threads 1 --rounds 3 --output " + out + k_ab_quick);
  EXPECT_EQ(ab.code, 3) << ab.err;
  EXPECT_NE(
      ab.err.find("the new side's run measured nothing: it ended without a result file (exit 3)"),
      std::string::npos)
      << ab.err;
  const Json c = read_json(out)["cases"][0];
  EXPECT_EQ(c["verdict"], "unknown");
  EXPECT_EQ(c["pairs"], 0);
  EXPECT_EQ(c["base"].size(), 3u);
  EXPECT_TRUE(c["base"][0].is_number()); // what the base side measured is kept
  EXPECT_NE(c["new_error"].get<std::string>().find("measured nothing"), std::string::npos)
      << c.dump();
}

TEST_F(Ab, AnInterruptedAbKeepsWhatBothSidesMeasured) {
  const std::string cfg =
      config(R"({"operators": [{"op": "exp", "cases": [{"args": {"self": "64"}}]}]})");
  const std::string out = m_dir.file("ab.json");
  const std::string err = m_dir.file("ab.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::freopen(err.c_str(), "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    ::execl(OPBENCH_BINARY, OPBENCH_BINARY, "ab", "--base-bin", OPBENCH_BINARY, "--new-bin",
            OPBENCH_BINARY, "--config", cfg.c_str(), "--threads", "1", "--rounds", "200",
            "--stop-after", "0", "--max-time", "0.01", "--process-warmup", "0", "--output",
            out.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // The A/B file is written after every round: once it is there, interrupt the next.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!core::path_exists(out) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << testing::read_text(err);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  const Json file = read_json(out);
  EXPECT_TRUE(file["interrupted"].get<bool>()) << testing::read_text(err);
  const int rounds = file["settings"]["rounds_done"];
  ASSERT_GE(rounds, 1);
  const Json& c = file["cases"][0];
  for (int r = 0; r < rounds; ++r) {
    EXPECT_TRUE(c["base"][r].is_number()) << c.dump();
    EXPECT_TRUE(c["new"][r].is_number()) << c.dump();
  }
}

} // namespace
} // namespace opbench
