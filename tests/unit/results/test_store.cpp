#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/merge.hpp"
#include "opbench/results/store.hpp"
#include "sample_result.hpp"
#include "temp_dir.hpp"

namespace opbench::results {
namespace {

using testing::TempDir;
using testing_support::make_result;

TEST(ResultSet, JsonRoundTripKeepsEverything) {
  ResultSet set;
  set.context = {{"host", "h"}};
  set.cases.push_back(make_result("a", {1e-6, 2e-6, 3e-6}));
  CaseResult failed = make_result("b", {});
  failed.status = results::Status::error;
  failed.message = "shapes do not broadcast";
  failed.memory.reset();
  set.cases.push_back(failed);
  const Json json = to_json(set);
  EXPECT_EQ(json["schema_version"], k_schema_version);
  const ResultSet back = result_set_from_json(json, "mem");
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.context["host"], "h");
  EXPECT_EQ(back.cases[0].samples, (std::vector<double>{1e-6, 2e-6, 3e-6}));
  EXPECT_DOUBLE_EQ(back.cases[0].summary.median, 2e-6);
  EXPECT_EQ(back.cases[0].timing.block_size, 100);
  ASSERT_TRUE(back.cases[0].memory.has_value());
  EXPECT_EQ(back.cases[0].memory->peak_bytes, 16);
  EXPECT_EQ(back.cases[1].status, results::Status::error);
  EXPECT_EQ(back.cases[1].message, "shapes do not broadcast");
  EXPECT_FALSE(back.cases[1].memory.has_value());
  EXPECT_TRUE(std::isnan(back.cases[1].summary.median)); // NaN written as null, read back
}

TEST(ResultSet, TheTimerIsWrittenByNameAndAnUnknownOneIsAnErrorNamingTheFile) {
  ResultSet set;
  set.cases.push_back(make_result("a", {1e-6}));
  set.cases[0].timing.timer = Timer::cuda_event;
  CaseResult failed = make_result("b", {});
  failed.timing.timer.reset(); // nothing was timed
  set.cases.push_back(failed);
  Json json = to_json(set);
  EXPECT_EQ(json["cases"][0]["timing"]["timer"], "cuda_event");
  EXPECT_EQ(json["cases"][1]["timing"]["timer"], "");
  const ResultSet back = result_set_from_json(json, "r.json");
  EXPECT_EQ(back.cases[0].timing.timer, Timer::cuda_event);
  EXPECT_FALSE(back.cases[1].timing.timer.has_value());
  json["cases"][0]["timing"]["timer"] = "wall_clock";
  try {
    result_set_from_json(json, "r.json");
    ADD_FAILURE() << "an unknown timer was read";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown timer 'wall_clock' (valid: steady_clock, "
                                         "host_sync, host_launch, cuda_event)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResultSet, TheInputsPutBackBeforeEveryBlockRoundTripAndAreChecked) {
  ResultSet set;
  CaseResult in_place = make_result("exp_", {1e-6, 2e-6, 3e-6});
  in_place.timing.restored = {"self"};
  set.cases.push_back(in_place);
  set.cases.push_back(make_result("exp", {1e-6, 2e-6, 3e-6}));
  Json json = to_json(set);
  EXPECT_EQ(json["cases"][0]["timing"]["restored"], Json::array({"self"}));
  EXPECT_FALSE(json["cases"][1]["timing"].contains("restored")); // older files look the same
  const ResultSet back = result_set_from_json(json, "mem");
  EXPECT_EQ(back.cases[0].timing.restored, std::vector<std::string>{"self"});
  EXPECT_TRUE(back.cases[1].timing.restored.empty());
  json["cases"][0]["timing"]["restored"] = "self";
  try {
    (void)result_set_from_json(json, "r.json");
    FAIL() << "a restored that is not a list of names was read";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("timing.restored: expected a list of argument names"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResultSet, RejectsNewerSchemaAndNonResults) {
  EXPECT_THROW(result_set_from_json(
                   {{"schema_version", k_schema_version + 1}, {"cases", Json::array()}}, "x"),
               ResultsError);
  EXPECT_THROW(result_set_from_json({{"foo", 1}}, "x"), ResultsError);
}

TEST(ResultWriter, JournalHoldsFinishedCasesUntilFinish) {
  TempDir dir;
  const std::string output = dir.file("sub/run.json");
  {
    ResultWriter writer(output, {{"host", "h"}});
    writer.append(make_result("a", {1.0}));
    writer.append(make_result("b", {2.0}));
    // Killed here: the journal alone has both cases.
    const ResultSet partial = load_results(writer.journal_path());
    ASSERT_EQ(partial.cases.size(), 2u);
    EXPECT_EQ(partial.cases[1].c.case_id, "b");
    EXPECT_FALSE(core::path_exists(output));
    writer.finish();
  }
  EXPECT_FALSE(core::path_exists(journal_path_for(output)));
  const ResultSet full = load_results(output);
  ASSERT_EQ(full.cases.size(), 2u);
  EXPECT_EQ(full.context["host"], "h");
}

TEST(ResultWriter, JournalKeepsRepetitionsOfCasesThatNeverFinished) {
  TempDir dir;
  const std::string output = dir.file("run.json");
  ResultWriter writer(output, {{"host", "h"}});
  // Interleaved: a finished in full; b had 2 of its 3 repetitions when the run was killed.
  CaseResult a0 = make_result("a", {1.0});
  a0.timing.repetition_medians = {1.0};
  writer.append_repetition(a0, 0, 2);
  CaseResult b0 = make_result("b", {2.0, 2.2});
  writer.append_repetition(b0, 0, 3);
  CaseResult a = combine_repetitions({make_result("a", {1.0}), make_result("a", {3.0})});
  writer.append(a);
  writer.append_repetition(make_result("b", {4.0}), 1, 3);
  const ResultSet partial = load_results(writer.journal_path());
  ASSERT_EQ(partial.cases.size(), 2u);
  EXPECT_EQ(partial.cases[0].c.case_id, "a");
  EXPECT_EQ(partial.cases[0].estimate.repetitions, 2u); // the finished record, not its parts
  EXPECT_DOUBLE_EQ(partial.cases[0].estimate.median, 2.0);
  const CaseResult& b = partial.cases[1];
  EXPECT_EQ(b.c.case_id, "b");
  EXPECT_EQ(b.status, results::Status::ok);
  EXPECT_EQ(b.message, "2 of 3 repetitions: the run ended before the others");
  EXPECT_EQ(b.samples, (std::vector<double>{2.0, 2.2, 4.0}));
  EXPECT_EQ(b.timing.repetition_medians, (std::vector<double>{2.1, 4.0}));
  EXPECT_DOUBLE_EQ(b.estimate.median, 3.05);
}

// A memory-bound case of six repetitions, two of them measured while the host gave 55 GB/s
// instead of its usual 33 GB/s (faster, as such cases then are).
TEST(ResultWriter, AnUnfinishedCaseIsCombinedWithTheRunsEstimator) {
  TempDir dir;
  ResultWriter writer(dir.file("run.json"), {{"host", "h"}});
  for (double m : {3.0, 1.0}) {
    CaseResult rep = make_result("a", {m});
    rep.timing.repetition_medians = {m};
    rep.estimate = estimate_of(rep.timing.repetition_medians, "median");
    writer.append_repetition(rep, 0, 5);
  }
  const ResultSet partial = load_results(writer.journal_path());
  ASSERT_EQ(partial.cases.size(), 1u);
  EXPECT_EQ(partial.cases[0].estimate.estimator, "median");
  EXPECT_DOUBLE_EQ(partial.cases[0].estimate.time, 2.0);
}

TEST(LoadResults, TornLastJournalLineIsDropped) {
  TempDir dir;
  const std::string journal =
      dir.write("run.json.journal.jsonl",
                Json({{"schema_version", 1}, {"context", {{"host", "h"}}}}).dump() + "\n" +
                    to_json(make_result("a", {1.0})).dump() + "\n" + "{\"case_id\": \"b\", \"na");
  const ResultSet set = load_results(journal);
  ASSERT_EQ(set.cases.size(), 1u);
  EXPECT_EQ(set.cases[0].c.case_id, "a");
}

TEST(LoadResults, MissingAndInvalidFiles) {
  TempDir dir;
  EXPECT_THROW(load_results(dir.file("none.json")), ResultsError);
  EXPECT_THROW(load_results(dir.write("bad.json", "{not json")), ResultsError);
  // A number past a double's range (nlohmann_json's out_of_range, not a parse_error).
  EXPECT_THROW(load_results(dir.write("huge.json", R"({"cases": [1E99999]})")), ResultsError);
}

// Found by bench/fuzz.sh (UBSan): an integer field holding a float past int64's range was cast
// (undefined behaviour). Integers are read exactly or refused, naming the field.
TEST(LoadResults, IntegerFieldsMustBeIntegersThatFit) {
  TempDir dir;
  const std::string one_case =
      R"({"schema_version": 1, "cases": [{"case_id": "a", "name": "a", "status": "ok",
      "threads": THREADS, "timing": {"block_size": BLOCK, "repetition_medians": [1e-6]}}]})";
  auto file = [&](const std::string& threads, const std::string& block) {
    std::string text = one_case;
    text.replace(text.find("THREADS"), 7, threads);
    text.replace(text.find("BLOCK"), 5, block);
    return dir.write("r.json", text);
  };
  EXPECT_EQ(load_results(file("2", "64.0")).cases.at(0).timing.block_size,
            64); // an integral float is fine
  for (const auto& [threads, block, key] :
       std::vector<std::array<std::string, 3>>{{"1", "1.91111e+81", "block_size"},
                                               {"1", "2.5", "block_size"},
                                               {"1", "\"8\"", "block_size"},
                                               {"0", "1", "threads"},
                                               {"1e300", "1", "threads"}}) {
    try {
      load_results(file(threads, block));
      ADD_FAILURE() << threads << " " << block;
    } catch (const ResultsError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + key + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(load_results(dir.write("v.json", R"({"schema_version": 1e99, "cases": []})")),
               ResultsError);
}

TEST(WriteAtomically, ReplacesWholeFile) {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  core::write_atomically(path, "first");
  core::write_atomically(path, "second");
  EXPECT_EQ(testing::read_text(path), "second");
  EXPECT_EQ(core::list_directory(dir.path()).size(), 1u); // no temp file left behind
}

TEST(LatestResult, NewestJsonInDirectory) {
  TempDir dir;
  EXPECT_THROW(latest_result(dir.file("nothing")), ResultsError);
  EXPECT_THROW(latest_result(dir.path()), ResultsError);
  const auto older = dir.write("run-1.json", "{}");
  const auto newer = dir.write("run-2.json", "{}");
  const std::int64_t newer_ns = core::modified_ns(newer);
  const timespec older_time{static_cast<time_t>(newer_ns / 1000000000 - 3600), 0};
  const timespec times[2] = {older_time, older_time};
  ASSERT_EQ(::utimensat(AT_FDCWD, older.c_str(), times, 0), 0);
  EXPECT_EQ(latest_result(dir.path()), newer);
}

TEST(DefaultOutputPath, UniqueInDirectory) {
  TempDir dir;
  const std::string first = default_output_path(dir.path());
  EXPECT_NE(first.find("/run-"), std::string::npos);
  std::ofstream(first) << "{}";
  EXPECT_NE(default_output_path(dir.path()), first);
}

// #47, defect 1: a new run with the same --output truncated an interrupted run's journal.
TEST(ResultWriter, AnInterruptedRunsJournalIsKeptUnderAnotherNameNeverTruncated) {
  TempDir dir;
  const std::string out = dir.file("x.json");
  std::string kept;
  {
    ResultWriter interrupted(out, {{"host", "first"}});
    interrupted.append(make_result("a", {1e-6, 2e-6}));
    EXPECT_TRUE(interrupted.kept_journal().empty());
  } // never finished: its journal stays
  {
    ResultWriter next(out, {{"host", "second"}});
    kept = next.kept_journal();
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept.rfind(out + ".interrupted-", 0), 0u) << kept;
    next.append(make_result("b", {1e-6}));
    next.finish();
  }
  const ResultSet before = load_results(kept);
  EXPECT_EQ(before.context["host"], "first");
  ASSERT_EQ(before.cases.size(), 1u);
  EXPECT_EQ(before.cases[0].c.case_id, "a");
  EXPECT_EQ(load_results(out).cases.at(0).c.case_id, "b");
}

// #47, defect 4: two runs with the same --output at once interleaved one journal.
TEST(ResultWriter, ASecondRunWithTheSameOutputIsRefusedWhileTheFirstRuns) {
  TempDir dir;
  const std::string out = dir.file("x.json");
  ResultWriter first(out, Json::object());
  try {
    ResultWriter second(out, Json::object());
    FAIL() << "two writers on one journal";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("another opbench run is writing to this output now"),
              std::string::npos)
        << e.what();
  }
  first.append(make_result("a", {1e-6}));
  first.finish();
  EXPECT_EQ(load_results(out).cases.size(), 1u);
  ResultWriter after(out, Json::object()); // once the first is done, the output is free again
  EXPECT_TRUE(after.kept_journal().empty());
}

// #47, defect 9: these failed only once the whole run had been measured.
TEST(ResultWriter, AnOutputThatCannotTakeTheResultIsRefusedBeforeAnythingIsMeasured) {
  TempDir dir;
  core::create_directories(dir.file("adir"));
  EXPECT_THROW(ResultWriter(dir.file("adir"), Json::object()), ResultsError);
  const std::string locked = dir.write("locked.json", "{}");
  ::chmod(locked.c_str(), 0444);
  try {
    ResultWriter writer(locked, Json::object());
    FAIL() << "would replace a read-only result";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("a read-only result file"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(core::path_exists(journal_path_for(locked)));
}

// #47, defects 2 and 10: a hostile result file is an error naming it, never a crash or a bare
// library message.
TEST(LoadResults, HostileFilesAreErrorsNamingTheFile) {
  TempDir dir;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string files[][2] = {
      {"deep.json", "{\"schema_version\": " + deep + ", \"cases\": []}"},
      {"deep.journal.jsonl", "{\"context\": {}}\n{\"case_id\": " + deep + "}\n{}\n"},
      {"context.json", "{\"schema_version\": 1, \"context\": [1], \"cases\": []}"},
      {"context.journal.jsonl", "{\"context\": \"x\"}\n"}};
  for (const auto& [name, text] : files) {
    const std::string path = dir.write(name, text);
    try {
      load_results(path);
      ADD_FAILURE() << name << " was read";
    } catch (const ResultsError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
    }
  }
}

// #47, defect 3: merge mixed shards measured with different settings.
TEST(MeasuringDifferences, NameEachSettingThatDiffers) {
  const Json a = {{"processes", 3},
                  {"repetitions", 6},
                  {"measuring", {{"processes", 3}, {"min_time", 0.01}, {"timer", "event"}}}};
  Json b = a;
  EXPECT_TRUE(measuring_differences(a, b).empty());
  b["processes"] = 1;
  b["measuring"]["processes"] = 1;
  b["measuring"]["min_time"] = 0.5;
  EXPECT_EQ(measuring_differences(a, b),
            (std::vector<std::string>{"min_time 0.01 vs 0.5", "processes 3 vs 1"}));
  const Json older = {{"processes", 3}, {"repetitions", 6}}; // before the "measuring" record
  EXPECT_EQ(measuring_differences(older, a),
            (std::vector<std::string>{"min_time not recorded vs 0.01",
                                      "timer not recorded vs \"event\""}));
}

} // namespace
} // namespace opbench::results
