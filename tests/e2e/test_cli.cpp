// End-to-end tests: the real opbench binary on tiny configs, checked through the files it writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <fstream>
#include <thread>

#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/store.hpp"
#include "cli_fixture.hpp"

namespace opbench {
namespace {

TEST_F(Cli, RunWritesResultsWithContextStatisticsAndSamples) {
  const std::string out = m_dir.file("out.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json" + k_quick +
                         " --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("[5/5]"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("5 case(s): 5 ok, 0 error, 0 skipped"), std::string::npos) << r.out;
  EXPECT_FALSE(core::path_exists(results::journal_path_for(out)));
  const Json json = read_json(out);
  EXPECT_EQ(json["schema_version"], 1);
  for (const char* key : {"opbench_version", "libtorch_version", "libtorch_build", "libtorch_cuda_compiled",
                          "host", "cpu_model", "logical_cores", "threads_default", "date", "command_line",
                          "seed", "host_allocator"}) {
    EXPECT_TRUE(json["context"].contains(key)) << key;
  }
  ASSERT_EQ(json["cases"].size(), 5u);
  const Json& first = json["cases"][0];
  EXPECT_EQ(first["case_id"], "add/self=16,other=16/float32/cpu/t1/forward");
  EXPECT_EQ(first["operator"], "aten::add.Tensor");
  EXPECT_EQ(first["arguments"]["alpha"], 1);
  EXPECT_EQ(first["status"], "ok");
  EXPECT_GE(first["samples"].size(), 3u);
  EXPECT_GT(first["stats"]["median"].get<double>(), 0.0);
  EXPECT_EQ(first["memory"]["peak_bytes"], 64);
  EXPECT_EQ(json["cases"][4]["name"], "softmax");
  // Where the run's time went: the timed blocks and the rest, phase by phase, within the wall
  // clock; the console says it in one line.
  const Json& spent = json["summary"]["time_spent"];
  double parts = 0;
  for (const char* key : {"timed", "inputs", "recording", "warmup", "retaken", "canary", "probes", "retried",
                          "process_warmup", "other"}) {
    ASSERT_TRUE(spent.contains(key)) << key;
    EXPECT_GE(spent[key].get<double>(), 0.0) << key;
    parts += spent[key].get<double>();
  }
  EXPECT_GT(spent["timed"].get<double>(), 0.0);
  EXPECT_GT(spent["inputs"].get<double>(), 0.0);
  EXPECT_NEAR(parts, spent["wall"].get<double>(), 1e-6 + 1e-9 * parts);  // `other` is the rest
  EXPECT_GT(first["timing"]["spent"]["warmup"].get<double>(), 0.0);
  EXPECT_NE(r.err.find(" s timed, "), std::string::npos) << r.err;
}

TEST_F(Cli, EachProcessDropsItsFirstRepetitionsForProcessWarmupSeconds) {
  // The first job of each measuring process is measured for --process-warmup seconds and
  // dropped: every case keeps its 6 repetitions, and the run says where the time went.
  const std::string quick = " --threads 1 --warmup 1 --runs 3 --min-time 0 --max-time 0.02 --block-time 0.0001";
  const std::string warm = m_dir.file("warm.json"), cold = m_dir.file("cold.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops add" + quick +
                         " --processes 2 --process-warmup 0.2 --output " + warm);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv --ops add" + quick + " --processes 1 --process-warmup 0 --output " + cold).code, 0);
  const Json warm_run = read_json(warm), cold_run = read_json(cold);
  ASSERT_FALSE(warm_run["cases"].empty());
  for (const auto& c : warm_run["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c["case_id"];
    EXPECT_EQ(c["timing"]["repetition_medians"].size(), 6u) << c["case_id"];
  }
  // Two processes, 0.2 s each at least; well under the run's wall clock.
  const Json& spent = warm_run["summary"]["time_spent"];
  EXPECT_GE(spent["process_warmup"].get<double>(), 0.4);
  EXPECT_LT(spent["process_warmup"].get<double>(), spent["wall"].get<double>());
  EXPECT_NE(r.err.find(" s process warmup, "), std::string::npos) << r.err;
  EXPECT_EQ(cold_run["summary"]["time_spent"]["process_warmup"].get<double>(), 0.0);
}

TEST_F(Cli, ExportToEveryFormatFromTheLatestRun) {
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops mm" + k_quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto csv = opbench("export --format csv");  // latest run of the results directory
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("case_id,name,kind,operator", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\"mm/self=8x8,mat2=8x8/float32/cpu/t1/forward\",mm,op,aten::mm,small,float32,cpu,1,forward,ok"),
            std::string::npos)
      << csv.out;
  const std::string md_file = m_dir.file("report.md");
  const auto md = opbench("export --format md --output " + md_file);
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(testing::read_text(md_file).find("| `mm/self=8x8,mat2=8x8/float32/cpu/t1/forward` | ok"),
            std::string::npos);
  const auto json = opbench("export --format json --output -");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(Json::parse(json.out)["cases"][0]["name"], "mm");
}

TEST_F(Cli, BadConfigExitsTwoWithFileAndRowBeforeRunning) {
  const std::string out = m_dir.file("never.json");
  const auto r = opbench("run --config " + k_data + "/bad_argument.csv --output " + out + k_quick);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(k_data + "/bad_argument.csv:3: unknown argument 'strides' for aten::conv2d (valid: input, "
                                "weight, bias, stride, padding, dilation, groups)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(core::path_exists(out));
  EXPECT_FALSE(core::path_exists(results::journal_path_for(out)));
}

TEST_F(Cli, FailingCaseExitsOneAndTheOthersStillRun) {
  const std::string out = m_dir.file("out.json");
  const auto r = opbench("run --config " + k_data + "/failing.csv --output " + out + k_quick);
  EXPECT_EQ(r.code, 1) << r.err;
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 3u);
  EXPECT_EQ(json["cases"][0]["status"], "ok");
  EXPECT_EQ(json["cases"][1]["status"], "error");
  EXPECT_EQ(json["cases"][1]["case_id"], "add/self=3x4,other=5/float32/cpu/t1/forward");
  EXPECT_NE(json["cases"][1]["message"].get<std::string>().find("must match"), std::string::npos);
  EXPECT_EQ(json["cases"][2]["status"], "ok");
}

TEST_F(Cli, LibTorchErrorsShowTheirFirstLineAndKeepTheirWholeText) {
  // 4 PB of input, beyond any machine's address space: the allocation fails inside LibTorch,
  // whose message goes on for lines.
  const std::string config = m_dir.write("huge.csv", "op,self\nrelu,100000x100000x100000\nrelu,[4]\n");
  const std::string out = m_dir.file("huge.json");
  const auto r = opbench("run --config " + config + k_quick + " --repetitions 1 --output " + out);
  EXPECT_EQ(r.code, 1) << r.err;
  const Json json = read_json(out);
  const std::string message = json["cases"][0]["message"];
  EXPECT_EQ(json["cases"][0]["status"], "error");
  EXPECT_NE(message.find("allocate"), std::string::npos) << message;
  EXPECT_EQ(json["cases"][1]["status"], "ok");
  // The console: one line for the case, its message's first line only.
  const std::string first = message.substr(0, message.find('\n'));
  const auto at = r.err.find(first);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Exception raised from"), std::string::npos) << r.err;
  EXPECT_NE(opbench("export --input " + out + " --format md").out.find("| error: " + first + " |"), std::string::npos);
}

TEST_F(Cli, KilledRunKeepsFinishedCasesInTheJournal) {
  const std::string out = m_dir.file("killed.json");
  const std::string journal = results::journal_path_for(out);
  const std::string err = m_dir.file("killed.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Many long cases: the run is killed long before it ends.
    const std::string config = k_data + "/tiny.csv";
    ::freopen(err.c_str(), "w", stderr);
    // One process: this run's own journal, repetition by repetition (--processes: the next test).
    ::execl(OPBENCH_BINARY, OPBENCH_BINARY, "run", "--config", config.c_str(), "--threads", "1", "--runs", "3",
            "--min-time", "0.3", "--max-time", "0.3", "--dtype", "float32,float64,float16,bfloat16",
            "--processes", "1", "--output", out.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Wait until two cases are in the journal (context line + 2), then kill -9.
  auto lines = [&] {
    std::ifstream in(journal);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed: " << testing::read_text(err);
  EXPECT_FALSE(core::path_exists(out));
  const auto exported = opbench("export --format json --input " + journal);
  ASSERT_EQ(exported.code, 0) << exported.err;
  const Json json = Json::parse(exported.out);
  // The journal held the context and two repetition records (interleaved: of one case or two):
  // export combines the repetitions of the cases that never finished, and loses none.
  ASSERT_GE(json["cases"].size(), 1u);
  EXPECT_LT(json["cases"].size(), 12u);
  std::size_t repetitions = 0;
  for (const auto& c : json["cases"]) {
    if (c["status"] == "skipped") {  // a dtype the operator lacks: one record, nothing repeated
      ++repetitions;
      continue;
    }
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_NE(c["message"].get<std::string>().find(" of 6 repetitions: the run ended before the others"),
              std::string::npos) << c["message"];
    repetitions += c["estimate"]["repetitions"].get<std::size_t>();
  }
  EXPECT_EQ(repetitions, static_cast<std::size_t>(lines() - 1));
}

TEST_F(Cli, RepetitionsSplitOverFreshProcessesArePooledIntoOneResult) {
  // 5 repetitions over 2 processes: 3 in the first, 2 in the second, every case in both.
  const std::string out = m_dir.file("processes.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv" + k_quick + " --repetitions 5 --processes 2 --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("process 1 of 2: 3 repetition(s) of each case"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("process 2 of 2: 2 repetition(s) of each case"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[process 2/2] [3/3] "), std::string::npos) << r.err;  // the children's progress, labelled
  const Json json = read_json(out);
  EXPECT_EQ(json["context"]["processes"], 2);
  ASSERT_EQ(json["cases"].size(), 3u);
  for (const auto& c : json["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["message"], "");
    EXPECT_EQ(c["estimate"]["repetitions"], 5);
    const auto medians = c["timing"]["repetition_medians"].get<std::vector<double>>();
    ASSERT_EQ(medians.size(), 5u);
    EXPECT_DOUBLE_EQ(c["estimate"]["time"].get<double>(), *std::min_element(medians.begin(), medians.end()));
    // The memory probe ran once (in the first process), the ATen calls were recorded.
    EXPECT_GT(c["memory"]["peak_bytes"].get<double>(), 0.0) << c["case_id"];
    EXPECT_EQ(c["work"]["aten_calls"], 1) << c["case_id"];
  }
  // Both processes' time is accounted for, and their repetitions count in the slow-spell figures:
  // all 15 planned ones (3 cases x 5), and those measured again (a slow spell on this shared
  // machine) within the retry budget of each process (40% of its planned repetitions, rounded down).
  EXPECT_EQ(json["summary"]["slow_spells"]["repetitions"].get<int>(), 15);
  EXPECT_LE(json["summary"]["slow_spells"]["repetitions_measured_again"].get<int>(), 3 + 2);
  EXPECT_GT(json["summary"]["time_spent"]["timed"].get<double>(), 0.0);
  // A case that fails fails in every process, and says which process told it first.
  const std::string failed = m_dir.file("failed.json");
  const auto f = opbench("run --config " + k_data + "/failing.csv" + k_quick + " --repetitions 2 --processes 2 --output " + failed);
  EXPECT_EQ(f.code, 1) << f.err;
  const Json cases = read_json(failed)["cases"];
  ASSERT_EQ(cases.size(), 3u) << f.err;
  EXPECT_EQ(cases[1]["status"], "error");
  EXPECT_EQ(cases[1]["message"].get<std::string>().rfind("process 1 of 2: ", 0), 0u) << cases[1]["message"];
  EXPECT_NE(cases[1]["message"].get<std::string>().find("must match"), std::string::npos) << cases[1]["message"];
  EXPECT_EQ(cases[2]["status"], "ok");
  EXPECT_EQ(cases[2]["estimate"]["repetitions"], 2);
}

TEST_F(Cli, AProcessKilledMidRunCostsOnlyWhatItHadNotFinished) {
  // The second of two processes is killed while it measures: every case keeps the first
  // process's repetitions and whatever the second finished (from its journal), and says so.
  const std::string out = m_dir.file("child-killed.json");
  const std::string err = m_dir.file("child-killed.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string config = k_data + "/tiny.csv";
    ::freopen(err.c_str(), "w", stderr);
    ::execl(OPBENCH_BINARY, OPBENCH_BINARY, "run", "--config", config.c_str(), "--threads", "1", "--runs", "3",
            "--min-time", "0.2", "--max-time", "0.2", "--dtype", "float32,float64", "--repetitions", "4",
            "--processes", "2", "--output", out.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // The parent's only child once the second process has started.
  auto child_of = [&]() -> pid_t {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    pid_t child = 0;
    in >> child;
    return child;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  pid_t second = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (testing::read_text(err).find("process 2 of 2") != std::string::npos && (second = child_of()) > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(second, 0) << testing::read_text(err);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // some of its repetitions are measured
  ::kill(second, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << testing::read_text(err);
  EXPECT_EQ(WEXITSTATUS(status), 0) << testing::read_text(err);
  EXPECT_NE(testing::read_text(err).find("process 2 of 2 ended without finishing (signal 9)"), std::string::npos)
      << testing::read_text(err);
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 6u);
  for (const auto& c : json["cases"]) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    const auto n = c["estimate"]["repetitions"].get<int>();
    EXPECT_GE(n, 2) << c["case_id"];  // the first process's, at least
    EXPECT_LE(n, 4) << c["case_id"];
    if (n < 4) {
      EXPECT_NE(c["message"].get<std::string>().find(" of 4 repetitions: process 2 of 2 ended without finishing (signal 9)"),
                std::string::npos) << c["message"];
    }
  }
}

TEST_F(Cli, ColdModeIsRecorded) {
  const std::string out = m_dir.file("cold.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops add --cold --output " + out + k_quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json c = read_json(out)["cases"][0];
  EXPECT_EQ(c["timing"]["mode"], "cold");
  EXPECT_EQ(c["timing"]["block_size"], 1);
  EXPECT_EQ(c["timing"]["cuda_graph"], "off");
}

TEST_F(Cli, BackwardAddsBackwardCases) {
  const std::string out = m_dir.file("out.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops mm --backward --output " + out + k_quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 2u);
  EXPECT_EQ(json["cases"][1]["direction"], "backward");
  EXPECT_EQ(json["cases"][1]["status"], "ok");
}

TEST_F(Cli, StagesRunCheckedAgainstEagerAndMakeTheStageTable) {
  const std::string out = m_dir.file("stages.json");
  const auto r = opbench("run --samples bbox2delta --stage eager,script,fused,graph --output " + out + k_quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  std::map<std::string, int> ok;
  for (const auto& c : json["cases"]) {
    const std::string stage = c["stage"];
    if (c["status"] == "ok") ++ok[stage];
    if (stage == "graph") {
      EXPECT_EQ(c["status"], "skipped");
      EXPECT_NE(c["message"].get<std::string>().find("CUDA devices only"), std::string::npos);
    }
    if (stage != "eager" && c["status"] == "ok") {
      EXPECT_LE(c["stage_info"]["check"].get<double>(), 1.0) << c["case_id"];
      EXPECT_EQ(c["timing"]["call_path"], stage);
    }
  }
  EXPECT_EQ(ok["eager"], 3);
  EXPECT_EQ(ok["script"], 3);
  EXPECT_EQ(ok["fused"], 3);
  const auto md = opbench("export --format stages -i " + out);
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("| bbox2delta | `sizes=[8]/float32/cpu/t"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| all |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("- graph skipped: the graph stage captures CUDA calls"), std::string::npos) << md.out;
  const auto csv = opbench("export --format stages-csv -i " + out);
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 4) << csv.out;
  const auto bad = opbench("run --samples bbox2delta --stage eager,jit" + k_quick);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown stage 'jit' in --stage (valid: eager, script, fused, graph, inductor)"), std::string::npos)
      << bad.err;
}

TEST_F(Cli, DocsSampleListIsTheGeneratedOne) {
  // docs/samples.md's list of samples is `opbench list --kind sample --md`, pasted between two markers.
  const auto r = opbench("list --kind sample --md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| [`bbox2delta`](https://github.com/open-mmlab/mmdetection/"), std::string::npos) << r.out;
  const std::string readme = testing::read_text(std::string(OPBENCH_SOURCE_DIR) + "/docs/samples.md");
  const std::string begin = "<!-- opbench list --kind sample --md -->\n", end = "<!-- end of the generated list -->";
  const auto from = readme.find(begin), to = readme.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(readme.substr(from + begin.size(), to - from - begin.size()), r.out)
      << "docs/samples.md's sample list is out of date: paste `opbench list --kind sample --md` between its markers";
}

TEST_F(Cli, EverySampleRunsForwardAndEveryDifferentiableOneBackward) {
  // Through the driver, as a user runs them: each sample's backward differentiates the inputs it
  // names (a layer's running statistics would make LibTorch refuse, as conv_bn's once did).
  const auto list = opbench("list --kind sample --json");
  ASSERT_EQ(list.code, 0) << list.err;
  std::string names;
  for (const auto& s : Json::parse(list.out)) names += (names.empty() ? "" : ",") + s.at("name").get<std::string>();
  const std::string out = m_dir.file("samples.json");
  const auto r = opbench("run --samples " + names + " --backward --repetitions 1 --no-memory --output " + out + k_quick);
  EXPECT_EQ(r.code, 0) << r.err;
  std::set<std::string> differentiated;
  const Json results = read_json(out);
  for (const auto& c : results.at("cases")) {
    const auto field = [&](const char* key) { return c.at(key).get<std::string>(); };
    if (field("status") == "skipped") {
      EXPECT_EQ(field("direction"), "backward") << field("case_id");
      EXPECT_NE(field("message").find("backward is not timed"), std::string::npos) << field("case_id");
      continue;
    }
    EXPECT_EQ(field("status"), "ok") << field("case_id") << ": " << field("message");
    if (field("direction") == "backward") differentiated.insert(field("name"));
  }
  EXPECT_GE(differentiated.size(), 62u);
}

TEST_F(Cli, UnknownOpAndMissingGpuAreUsageErrors) {
  const auto op = opbench("run --config " + k_data + "/tiny.csv --ops nosuch" + k_quick);
  EXPECT_EQ(op.code, 2);
  EXPECT_NE(op.err.find("unknown operator 'nosuch'"), std::string::npos) << op.err;
  const auto flag = opbench("run --no-such-flag");
  EXPECT_EQ(flag.code, 2);
  const auto gpu = opbench("run --config " + k_data + "/tiny.csv --ctx cpu,gpu0" + k_quick);
  if (gpu.code == 0) GTEST_SKIP() << "a CUDA device is visible: the no-GPU error path cannot show here";
  EXPECT_EQ(gpu.code, 2);
  EXPECT_NE(gpu.err.find("opbench: device cuda:0 is not available: "), std::string::npos) << gpu.err;
  EXPECT_NE(gpu.err.find("CUDA device(s) are visible"), std::string::npos) << gpu.err;
}

TEST_F(Cli, ListListTagsAndShow) {
  const std::string configs = " --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json";
  const auto list = opbench("list" + configs);
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("softmax"), std::string::npos);
  const auto list_json = opbench("list --json" + configs);
  const Json entries = Json::parse(list_json.out);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0]["name"], "add");
  EXPECT_EQ(entries[0]["kind"], "op");
  EXPECT_EQ(entries[0]["cases"], 1);
  const auto filtered = Json::parse(opbench("list --json --category activation" + configs).out);
  EXPECT_EQ(filtered.size(), 2u);
  const Json tags = Json::parse(opbench("list-tags --json" + configs).out);
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0]["tag"], "elementwise");
  EXPECT_EQ(tags[0]["count"], 1);
  const auto show = opbench("show softmax" + configs);
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("schema: aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find(k_data + "/tiny.json:/operators/1/cases/0; source: unit test"), std::string::npos)
      << show.out;
  EXPECT_EQ(opbench("show nosuchthing" + configs).code, 2);
  const auto all = opbench("list --all");
  EXPECT_NE(all.out.find("aten::conv2d\n"), std::string::npos);
}

TEST_F(Cli, ShardsCoverEveryCaseOnceAndMergeJoinsThem) {
  // The Slurm recipe of docs/nightly.md, with the array variables set by hand.
  const std::string configs = " --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json";
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) {
    const std::string out = m_dir.file("shard" + std::to_string(i) + ".json");
    const auto r = opbench("run" + configs + k_quick + " --no-memory --shard " + std::to_string(i) + "/3 --output " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    files.push_back(out);
  }
  const std::string merged = m_dir.file("all.json");
  const auto m = opbench("merge " + files[0] + " " + files[1] + " " + files[2] + " --output " + merged);
  ASSERT_EQ(m.code, 0) << m.err;
  std::vector<std::string> ids;
  const Json all = read_json(merged);
  for (const auto& c : all["cases"]) ids.push_back(c["case_id"]);
  std::sort(ids.begin(), ids.end());
  const auto dry = opbench("run" + configs + " --threads 1 --dry-run");
  std::vector<std::string> planned;
  std::istringstream lines(dry.out);
  for (std::string line; std::getline(lines, line);) planned.push_back(line);
  std::sort(planned.begin(), planned.end());
  EXPECT_EQ(ids, planned);
  EXPECT_EQ(all["context"]["merged_from"].size(), 3u);

  EXPECT_EQ(opbench("merge " + files[0] + " " + files[0] + " --output " + merged).code, 2);  // duplicates
  Json other = read_json(files[1]);
  other["context"]["libtorch_version"] = "0.0.1";
  const std::string foreign = m_dir.write("foreign.json", other.dump());
  const auto refused = opbench("merge " + files[0] + " " + foreign + " --output " + merged);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("libtorch_version"), std::string::npos) << refused.err;
  EXPECT_EQ(opbench("run" + configs + " --shard 3/3").code, 2);
}

TEST_F(Cli, FromReRunsTheStoredCasesWithRepetitions) {
  const std::string first = m_dir.file("first.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv --dtype float64" + k_quick + " --output " + first).code, 0);
  const std::string again = m_dir.file("again.json");
  const auto r = opbench("run --from " + first + k_quick + " --repetitions 3 --interleave --ops mm,add --output " + again);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json a = read_json(first), b = read_json(again);
  ASSERT_EQ(b["cases"].size(), 2u);
  EXPECT_EQ(b["cases"][0]["case_id"], a["cases"][0]["case_id"]);
  EXPECT_EQ(b["cases"][0]["dtype"], "float64");
  EXPECT_EQ(b["cases"][0]["given"], a["cases"][0]["given"]);
  EXPECT_EQ(b["cases"][0]["timing"]["repetition_medians"].size(), 3u);
  EXPECT_GE(b["cases"][0]["samples"].size(), 9u);
  EXPECT_EQ(b["context"]["repetitions"], 3);
}

TEST_F(Cli, TwoRunsOfATinySuiteAgreeAndSayHowSureTheyAre) {
  // Two processes, the same cases, the default repetitions (interleaved, fresh placements).
  // These tests share the machine with others (ctest -j), so the bound is loose: it catches a
  // broken estimate (a wrong unit, a repetition's median lost), not a percent of noise. On this
  // shared 2-core VM a busy neighbour can slow a whole second-long run ×2 (seen: every case of
  // one run ×1.7–2.0, docs/reproducibility.md), so the bound is ×3 either way.
  const std::string quick = " --threads 1 --warmup 1 --runs 3 --min-time 0 --max-time 0.02";
  const std::string first = m_dir.file("first.json"), second = m_dir.file("second.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv" + quick + " --output " + first).code, 0);
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv" + quick + " --output " + second).code, 0);
  const Json second_run = read_json(second);  // (a range-for over a temporary's member dangles)
  ASSERT_EQ(second_run["cases"].size(), 3u);
  for (const auto& c : second_run["cases"]) {
    const Json& e = c["estimate"];
    EXPECT_EQ(e["repetitions"], 6) << c["case_id"];
    EXPECT_EQ(c["timing"]["repetition_medians"].size(), 6u);
    EXPECT_LE(e["low"].get<double>(), e["median"].get<double>());
    EXPECT_LE(e["median"].get<double>(), e["high"].get<double>());
    EXPECT_DOUBLE_EQ(e["coverage"].get<double>(), 1.0 - 2.0 / 64.0);  // [min, max] of 6
    // The default estimator: the case's time is the mean of its two fastest repetition medians
    // (the fastest third of 6).
    EXPECT_EQ(e["estimator"], "fastest-third");
    auto medians = c["timing"]["repetition_medians"].get<std::vector<double>>();
    std::sort(medians.begin(), medians.end());
    EXPECT_DOUBLE_EQ(e["time"].get<double>(), (medians[0] + medians[1]) / 2);
    // Only the first repetition records the ATen calls; their count and work reach the case.
    EXPECT_EQ(c["work"]["aten_calls"], 1) << c["case_id"];
    EXPECT_GT(c["work"]["flops"].get<double>(), 0.0) << c["case_id"];
  }
  EXPECT_EQ(read_json(second)["context"]["estimator"], "fastest-third");
  EXPECT_EQ(read_json(second)["context"]["processes"], 3);  // the default: 2 repetitions in each of 3 processes
  const auto r = opbench("compare " + first + " " + second + " --format json");
  ASSERT_NE(r.code, 2) << r.err;
  const Json agreement = Json::parse(r.out)["agreement"];
  EXPECT_EQ(agreement["cases"], 3);  // tiny.csv: add, mul, mm
  EXPECT_LT(agreement["median_abs_change"].get<double>(), 2.0) << agreement.dump();
  for (const auto& w : agreement["worst"]) {
    EXPECT_GT(w["ratio"].get<double>(), 1.0 / 3) << w.dump();
    EXPECT_LT(w["ratio"].get<double>(), 3.0) << w.dump();
  }
  // The console and the Markdown report say how each time was made and how sure it is.
  EXPECT_NE(opbench("export --input " + second + " --format md").out.find("fastest-third of 6 reps · median "), std::string::npos);
  // --estimator median: the time is the median of the repetition medians, and compare follows
  // the base file's estimator unless told.
  const std::string third = m_dir.file("third.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv" + quick + " --estimator median --output " + third).code, 0);
  const Json third_run = read_json(third);
  ASSERT_EQ(third_run["cases"].size(), 3u);
  for (const auto& c : third_run["cases"]) {
    EXPECT_EQ(c["estimate"]["estimator"], "median");
    EXPECT_DOUBLE_EQ(c["estimate"]["time"].get<double>(), c["estimate"]["median"].get<double>());
  }
  const Json mixed = Json::parse(opbench("compare " + third + " " + second + " --format json").out);
  EXPECT_EQ(mixed["estimator"], "median");
  // One note says NEW's times were made again with BASE's estimator. (Others may come with it:
  // under ctest -j the host can run the two runs over 3% apart in speed, and compare says so.)
  const auto notes = mixed["notes"].get<std::vector<std::string>>();
  EXPECT_EQ(std::count_if(notes.begin(), notes.end(),
                          [](const std::string& n) {
                            return n.rfind("NEW was run with the fastest-third estimator and BASE with the median", 0) == 0;
                          }),
            1)
      << mixed["notes"].dump();
  EXPECT_EQ(Json::parse(opbench("compare " + third + " " + second + " --format json --estimator min").out)["estimator"], "min");
  EXPECT_EQ(opbench("run --config " + k_data + "/tiny.csv --estimator mean --dry-run").code, 2);
}

TEST_F(Cli, IsolatedRepetitionsRunInFreshProcesses) {
  const std::string out = m_dir.file("iso.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv --ops mm" + k_quick +
                         " --repetitions 2 --isolate --estimator median --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json c = read_json(out)["cases"][0];
  EXPECT_EQ(c["status"], "ok");
  EXPECT_EQ(c["timing"]["repetition_medians"].size(), 2u);
  EXPECT_EQ(c["estimate"]["estimator"], "median");  // the fresh processes are told it too
  EXPECT_EQ(c["memory"]["peak_bytes"], 256);
}

TEST_F(Cli, CompareExitCodesAndFormats) {
  const std::string base = k_data + "/compare/base.json", slow = k_data + "/compare/slow_mul.json";
  const auto same = opbench("compare " + base + " " + base);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("**0 slower, 0 faster, 5 same, 0 unknown**"), std::string::npos) << same.out;
  const auto regressed = opbench("compare " + base + " " + slow + " --format json");
  EXPECT_EQ(regressed.code, 1);
  EXPECT_EQ(Json::parse(regressed.out)["counts"]["slower"], 1);
  EXPECT_EQ(opbench("compare " + base + " " + slow + " --threshold 0.5").code, 0);
  const std::string broken = m_dir.write("broken.json", "{\"cases\": 3}");
  EXPECT_EQ(opbench("compare " + base + " " + broken).code, 2);
}

TEST_F(Cli, ExportGbench) {
  const auto r = opbench("export --input " + k_data + "/compare/base.json --format gbench");
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["benchmarks"].size(), 5u * (20 + 4));
  EXPECT_EQ(doc["benchmarks"][0]["time_unit"], "ns");
}

TEST_F(Cli, NightlyScriptJudgesEachNightAgainstTheHistory) {
  const std::string script = std::string(OPBENCH_SOURCE_DIR) + "/scripts/nightly.sh";
  const std::string db = m_dir.file("nightly/history.sqlite");
  // Two nights of history are enough here (the default is 5); a huge floor: no candidate.
  const std::string env = "OPBENCH='" + std::string(OPBENCH_BINARY) + "' OPBENCH_NIGHTLY_DIR='" + m_dir.file("nightly") +
                          "' OPBENCH_GATE_ARGS='--min-history 2 --effect-floor 100' OPBENCH_LABEL=abc123 ";
  const std::string args = " --config " + k_data + "/tiny.csv --threads 1 --warmup 1 --runs 3 --min-time 0 --max-time 0.01";
  auto shell = [&](const std::string& command) {
    const std::string err = m_dir.file("nightly.err");
    const int status = std::system((env + command + " >'" + m_dir.file("nightly.out") + "' 2>'" + err + "'").c_str());
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_text(err));
  };
  for (int night = 0; night < 3; ++night) {
    const auto r = shell(script + args);
    ASSERT_EQ(r.first, 0) << r.second;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // another date for the next night
  }
  int results = 0, first_reports = 0, gates = 0;
  std::string last_gate;
  for (const std::string& path : core::list_directory(m_dir.file("nightly"))) {
    const std::string name = core::filename(path);
    auto ends = [&](const std::string& suffix) {
      return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends(".gate.md")) {
      ++gates;
      const std::string text = testing::read_text(path);
      if (text.find("3 same") != std::string::npos) last_gate = text;
    } else if (ends(".md")) {
      ++first_reports;
    } else if (name.rfind("nightly-", 0) == 0 && ends(".json") && !ends(".gate.json") && !ends(".first.json")) {
      ++results;
    }
  }
  EXPECT_EQ(results, 3);
  EXPECT_EQ(first_reports, 1);  // the first night starts the history
  // Every night passed: its binary is kept as the next night's previous build (A/B confirmation).
  EXPECT_TRUE(core::path_exists(m_dir.file("nightly/opbench.previous")));
  EXPECT_EQ(gates, 2);          // the next two are judged; the third against two nights
  EXPECT_NE(last_gate.find("No candidate tonight."), std::string::npos) << last_gate;
  EXPECT_NE(last_gate.find("0 slower, 0 faster, 3 same, 0 unknown"), std::string::npos) << last_gate;
  const auto show = opbench("history show --db " + db + " --format json");
  ASSERT_EQ(show.code, 0) << show.err;
  const Json history = Json::parse(show.out);
  ASSERT_EQ(history["runs"].size(), 3u);
  EXPECT_EQ(history["runs"][0]["label"], "abc123");
  EXPECT_EQ(history["series"].size(), 3u);
  ASSERT_EQ(history["change_points"].size(), 3u);  // three nights: too few for a change point
  for (const auto& [id, found] : history["change_points"].items()) EXPECT_TRUE(found.empty()) << id;
  // Adding a night again changes nothing.
  const std::string night = history["runs"][0]["source"];
  EXPECT_NE(opbench("history add --db " + db + " " + night).out.find("was already in the history"), std::string::npos);
}

// The A/B confirmation of scripts/nightly.sh: a history made 4x faster than tonight, so tonight's
// case is a candidate; the previous build's binary is this one (the plumbing is what is tested:
// rounds of both binaries, their files, the A/B verdict in the report).
TEST_F(Cli, NightlyScriptConfirmsCandidatesAbAgainstTheBaselineBinary) {
  const std::string first = m_dir.file("first.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv --ops add" + k_quick + " --output " + first).code, 0);
  const std::string db = m_dir.file("ab/history.sqlite");
  core::create_directories(m_dir.file("ab"));
  for (int n = 0; n < 6; ++n) {
    Json night = read_json(first);
    night["context"]["date"] = "2020-01-0" + std::to_string(n + 1) + "T00:00:00Z";
    for (auto& c : night["cases"]) {
      for (auto& m : c["timing"]["repetition_medians"]) m = m.get<double>() * 0.25 * (1 + 0.01 * (n % 3));
    }
    ASSERT_EQ(opbench("history add --db " + db + " " + m_dir.write("old" + std::to_string(n) + ".json", night.dump())).code, 0);
  }
  const std::string script = std::string(OPBENCH_SOURCE_DIR) + "/scripts/nightly.sh";
  const std::string env = "OPBENCH='" + std::string(OPBENCH_BINARY) + "' OPBENCH_BASELINE_BIN='" + OPBENCH_BINARY +
                          "' OPBENCH_AB_ROUNDS=2 OPBENCH_NIGHTLY_DIR='" + m_dir.file("ab") + "' OPBENCH_HISTORY='" + db +
                          "' OPBENCH_GATE_ARGS='--min-history 2 --candidate-alpha 0.05' OPBENCH_CONFIRM_ARGS='--warmup 1 --runs 3 --min-time 0 --max-time 0.02 --block-time 0.0001' ";
  const std::string err = m_dir.file("ab.err");
  const int status = std::system((env + script + " --config " + k_data + "/tiny.csv --ops add" + k_quick + " >'" +
                                  m_dir.file("ab.out") + "' 2>'" + err + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_LE(WEXITSTATUS(status), 1) << testing::read_text(err);
  int news = 0, olds = 0, looks = 0;
  std::string gate_json, gate_md;
  for (const std::string& path : core::list_directory(m_dir.file("ab"))) {
    const std::string name = core::filename(path);
    if (name.size() > 17 && name.compare(name.size() - 17, 17, ".second-look.json") == 0) ++looks;
    if (name.find(".confirm-new-") != std::string::npos) ++news;
    if (name.find(".confirm-old-") != std::string::npos) ++olds;
    if (name.size() > 10 && name.compare(name.size() - 10, 10, ".gate.json") == 0) gate_json = path;
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".gate.md") == 0) gate_md = path;
  }
  EXPECT_EQ(looks, 1);  // 4x slower tonight: a second look with the night's own settings, then a candidate
  EXPECT_EQ(news, 6);   // 2 rounds of 3 processes a side
  EXPECT_EQ(olds, 6);
  ASSERT_FALSE(gate_json.empty()) << testing::read_text(err);
  const Json gate = read_json(gate_json);
  EXPECT_TRUE(gate["second_look_taken"].get<bool>()) << gate.dump();
  EXPECT_EQ(gate["counts"]["second_looks"], 1) << gate.dump();
  EXPECT_EQ(gate["counts"]["candidates"], 1) << gate.dump();
  EXPECT_GT(gate["cases"][0]["look_ratio"].get<double>(), 2.0) << gate.dump();
  EXPECT_EQ(gate["confirmation"], "a/b against the previous build");
  const std::string reason = gate["cases"][0]["reason"];
  EXPECT_NE(reason.find("A/B against the previous build"), std::string::npos) << reason;
  EXPECT_NE(testing::read_text(gate_md).find("confirmed A/B against the previous build's binary"), std::string::npos);
}

TEST_F(Cli, GateJudgesEveryNightWithTonightsEstimator) {
  // Five nights recorded with --estimator min (the default until 2026-11-25), tonight the same
  // repetition medians with fastest-third: tonight's time is 10% over the nights' stored times by
  // the estimators' difference alone, and the gate makes every night's value again with
  // tonight's estimator from its stored repetition medians, so nothing moved.
  Json base = read_json(k_data + "/compare/base.json");
  const std::vector<double> shape = {1.0, 1.2, 1.25, 1.3, 1.35, 1.4};  // fastest-third: 1.1
  auto night = [&](int n, const std::string& estimator, double noise) {
    Json out = base;
    out["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    out["context"]["estimator"] = estimator;
    out["context"]["repetitions"] = 6;
    for (auto& c : out["cases"]) {
      const double t = c["stats"]["median"].get<double>() * noise;  // (base.json predates `estimate`)
      Json medians = Json::array();
      for (double f : shape) medians.push_back(t * f);
      c["timing"]["repetition_medians"] = medians;
      c["estimate"] = {{"unit", "s"}, {"estimator", estimator}, {"time", estimator == "min" ? t : t * 1.1},
                       {"repetitions", 6}, {"median", t * 1.275}, {"low", t}, {"high", t * 1.4},
                       {"coverage", 0.96875}, {"spread", 0.2}};
    }
    return m_dir.write("night-" + estimator + std::to_string(n) + ".json", out.dump());
  };
  const std::string db = m_dir.file("estimators.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n) ASSERT_EQ(opbench("history add --db " + db + " " + night(n, "min", noise[n])).code, 0);
  const auto r = opbench("compare --history " + db + " " + night(8, "fastest-third", 1.0) + " --format json");
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
      EXPECT_NEAR(points[n]["recorded"]["time"].get<double>() / tonight, noise[n] / 1.1, 1e-9) << id;
    }
  }
  const std::string id = trends["series"].begin().key();
  const auto as_min = opbench("history show --db " + db + " --case '" + id + "' --estimator min");
  ASSERT_EQ(as_min.code, 0) << as_min.err;
  EXPECT_NE(as_min.out.find("Each run's time: `min` over"), std::string::npos) << as_min.out;
  EXPECT_NE(as_min.out.find("| fastest-third: "), std::string::npos) << as_min.out;  // tonight's, as recorded
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
    ASSERT_EQ(opbench("history add --db " + db + " " + night(n, noise[n], noise[n], "boxed")).code, 0);
  }
  const std::string tonight = night(8, 0.7, 2.0, "typed");
  const auto r = opbench("compare --history " + db + " " + tonight + " --format json");
  const Json gate = Json::parse(r.out);
  const std::string first = base["cases"][0]["case_id"], second = base["cases"][1]["case_id"];
  for (const auto& c : gate["cases"]) {
    if (c["case_id"] == first) {
      EXPECT_EQ(c["verdict"], "unknown") << c.dump();
      EXPECT_EQ(c["nights"], 0) << c.dump();
      EXPECT_EQ(c["reason"], "history has 0 night(s), 5 needed; called typed tonight; left out: 5 night(s) called boxed")
          << c.dump();
    } else if (c["case_id"] == second) {
      EXPECT_EQ(c["nights"], 5) << c.dump();
      EXPECT_TRUE(c["candidate"].get<bool>()) << c.dump();
    }
  }
  EXPECT_EQ(gate["counts"]["called_otherwise"], 1) << r.out;
  const auto md = opbench("compare --history " + db + " " + tonight);
  EXPECT_NE(md.out.find("unknown (1 called another way than their history: opbench's change, not the code's)"),
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

TEST_F(Cli, GateConfirmsOnlyWhatTheSecondMeasurementShows) {
  // A history of five nights, made from one real result with its repetition medians scaled by
  // known noise;
  // tonight mul is 30% slower, and so is its confirmation, while add's confirmation is back to normal.
  const std::string base_file = k_data + "/compare/base.json";
  Json base = read_json(base_file);
  const std::string db = m_dir.file("h.sqlite");
  const double noise[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int n = 0; n < 5; ++n) {
    Json night = base;
    night["context"]["date"] = "2026-11-0" + std::to_string(n + 1) + "T00:00:00Z";
    for (auto& c : night["cases"]) {
      for (auto& m : c["timing"]["repetition_medians"]) m = m.get<double>() * noise[n];
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
      for (auto& m : c["timing"]["repetition_medians"]) m = m.get<double>() * f;
    }
    return m_dir.write(name, night.dump());
  };
  const std::string tonight = scaled("tonight.json", 1.3, 1.3);
  const std::string candidates = m_dir.file("candidates.txt");
  const auto first = opbench("compare --history " + db + " " + tonight + " --format json --candidates-out " + candidates);
  ASSERT_EQ(first.code, 0) << first.err;  // candidates are no alert
  EXPECT_EQ(Json::parse(first.out)["counts"]["candidates"], 2);
  const std::string listed = testing::read_text(candidates);
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 2) << listed;
  EXPECT_NE(listed.find("mul/"), std::string::npos) << listed;
  const std::string again = scaled("again.json", 1.0, 1.3);
  const auto second = opbench("compare --history " + db + " " + tonight + " --confirm " + again + " --format json");
  EXPECT_EQ(second.code, 1) << second.err;
  const Json gate = Json::parse(second.out);
  EXPECT_EQ(gate["counts"]["slower"], 1);
  for (const auto& c : gate["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0) EXPECT_EQ(c["verdict"], "slower") << c.dump();
    if (id.rfind("add/", 0) == 0) EXPECT_EQ(c["reason"], "not confirmed") << c.dump();
  }
  const auto md = opbench("compare --history " + db + " " + tonight + " --confirm " + again);
  EXPECT_NE(md.out.find("## Candidates"), std::string::npos) << md.out;

  // A/B against the previous build: five processes of each build, one value each (the run's
  // estimator over the process's repetitions; 5 against 5 is the fewest for which a rank test
  // that sees them all apart passes Benjamini-Hochberg over two candidates: p = 2/252). Tonight's
  // build has mul 30% slower than the previous one; add is the same in both.
  std::string ab_files;
  const double jitter[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int k = 0; k < 5; ++k) {
    ab_files += " --confirm " + scaled("new" + std::to_string(k) + ".json", jitter[k], 1.3 * jitter[(k + 2) % 5]);
    ab_files += " --confirm-baseline " + scaled("old" + std::to_string(k) + ".json", jitter[(k + 1) % 5], jitter[(k + 3) % 5]);
  }
  const std::string old1 = m_dir.file("old0.json");
  // Two processes a side are too few to decide: the candidates stay unknown.
  const auto two = opbench("compare --history " + db + " " + tonight + " --confirm " + m_dir.file("new0.json") +
                           " --confirm " + m_dir.file("new1.json") + " --confirm-baseline " + old1 +
                           " --confirm-baseline " + m_dir.file("old1.json") + " --format json");
  EXPECT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(Json::parse(two.out)["counts"]["unknown"], 2) << two.out;
  const auto ab = opbench("compare --history " + db + " " + tonight + ab_files + " --format json");
  EXPECT_EQ(ab.code, 1) << ab.err;
  const Json abgate = Json::parse(ab.out);
  EXPECT_EQ(abgate["confirmation"], "a/b against the previous build");
  EXPECT_EQ(abgate["counts"]["slower"], 1);
  for (const auto& c : abgate["cases"]) {
    const std::string id = c["case_id"];
    if (id.rfind("mul/", 0) == 0) EXPECT_EQ(c["reason"], "confirmed A/B against the previous build") << c.dump();
    if (id.rfind("add/", 0) == 0) EXPECT_EQ(c["reason"], "not confirmed A/B against the previous build") << c.dump();
  }
  const auto lone = opbench("compare --history " + db + " " + tonight + " --confirm-baseline " + old1);
  EXPECT_EQ(lone.code, 2);
  EXPECT_NE(lone.err.find("--confirm-baseline needs --confirm"), std::string::npos) << lone.err;
  const auto adjusted = opbench("compare --history " + db + " " + tonight + " --adjust-speed");
  EXPECT_EQ(adjusted.code, 2);
  EXPECT_NE(adjusted.err.find("--adjust-speed goes with two files"), std::string::npos) << adjusted.err;

  // The second look: mul 4% slower tonight (p about 0.01 against these five nights: a second
  // look, no candidate) and 8% in the second look (together a candidate); add 30% slower tonight
  // (a candidate alone) and back in the second look (together under the floor).
  const std::string looked = scaled("looked.json", 1.3, 1.04);
  const std::string looks = m_dir.file("looks.txt");
  const auto asked = opbench("compare --history " + db + " " + looked + " --format json --looks-out " + looks +
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
    if (id.rfind("add/", 0) == 0) EXPECT_EQ(c["reason"], "not a candidate after a second look") << c.dump();
  }
  EXPECT_NE(opbench("compare --history " + db + " " + looked + " --second-look " + look2).out.find("both looks"),
            std::string::npos);
  // A second look measured otherwise than tonight cannot be averaged with it.
  Json other = read_json(look2);
  other["context"]["repetitions"] = 99;
  const auto mismatch = opbench("compare --history " + db + " " + looked + " --second-look " +
                                m_dir.write("other-look.json", other.dump()));
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_NE(mismatch.err.find("its repetitions is 99"), std::string::npos) << mismatch.err;
}

TEST_F(Cli, CalibrateThenRunReportsPercentOfPeak) {
  const std::string peaks = m_dir.file("peaks.json");
  const auto cal = opbench("calibrate --threads 1 --buffer-mib 8 --gemm-n 128 --seconds 0.05 --peaks " + peaks);
  ASSERT_EQ(cal.code, 0) << cal.err;
  EXPECT_NE(cal.out.find("cpu float32 t1: copy "), std::string::npos) << cal.out;
  const Json stored = read_json(peaks);
  ASSERT_EQ(stored["peaks"].size(), 1u);
  EXPECT_GT(stored["peaks"][0]["gemm_flops"].get<double>(), 0.0);
  EXPECT_EQ(stored["peaks"][0]["context"]["gemm_n"], 128);

  const std::string out = m_dir.file("roof.json");
  const auto run = opbench("run --config " + k_data + "/tiny.csv --ops mm" + k_quick + " --peaks " + peaks + " --output " + out);
  ASSERT_EQ(run.code, 0) << run.err;
  const Json work = read_json(out)["cases"][0]["work"];
  EXPECT_EQ(work["flops"], 1024.0);  // 2 * 8 * 8 * 8
  EXPECT_EQ(work["bytes"], 768.0);   // three 8x8 float32 tensors
  EXPECT_GT(work["percent_of_peak"].get<double>(), 0.0);
  EXPECT_TRUE(work["bound"] == "memory" || work["bound"] == "compute");
  const auto md = opbench("export --format md --input " + out);
  EXPECT_NE(md.out.find("% of roof"), std::string::npos);

  // Without peaks for that point (2 threads were not calibrated): rates, no percentage.
  const std::string other = m_dir.file("other.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv --ops mm --threads 2 --runs 3 --min-time 0 --max-time 0.02 --peaks " +
                    peaks + " --output " + other).code, 0);
  EXPECT_TRUE(read_json(other)["cases"][0]["work"]["percent_of_peak"].is_null());
  EXPECT_GT(read_json(other)["cases"][0]["work"]["flops_per_second"].get<double>(), 0.0);
}

TEST_F(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "run", "list", "list-tags", "show", "export", "compare", "merge", "calibrate", "extract"}) {
    const auto r = opbench(std::string(sub) + " --help");
    EXPECT_EQ(r.code, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << ": " << r.out;
  }
}

TEST_F(Cli, EveryShippedOperatorRunsItsSmallCases) {
  // The CI smoke run: every operator of the catalogue at its small cases, one sample each.
  const std::string out = m_dir.file("smoke.json");
  const auto r = opbench("--config-dir " + std::string(OPBENCH_CONFIG_DIR) +
                         " run --shape-class small --threads 1 --warmup 0 --runs 1 --min-time 0 --max-time 0"
                         " --block-time 0.0001 --no-memory --output " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  std::set<std::string> names;
  for (const auto& c : json["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c["case_id"] << ": " << c["message"];
    names.insert(c["name"].get<std::string>());
  }
  EXPECT_GE(names.size(), 250u);
}

TEST_F(Cli, CatalogueFiltersAndTheDefaultSuite) {
  const std::string dir = " --config-dir " + std::string(OPBENCH_CONFIG_DIR);
  const Json all = Json::parse(opbench("list --json" + dir).out);
  EXPECT_GE(all.size(), 250u);
  std::set<std::string> categories;
  for (const auto& e : all) categories.insert(e["category"].get<std::string>());
  for (const char* c : {"creation", "conversion", "shape", "reduction", "sorting", "elementwise.binary",
                        "comparison", "indexing", "elementwise.unary", "join", "gemm", "random", "nn.conv",
                        "nn.pool", "activation", "nn.norm", "nn.dropout", "nn.embedding", "nn.recurrent",
                        "nn.loss", "nn.attention", "nn.upsample", "nn.pad", "nn.sample", "nn.shuffle"}) {
    EXPECT_EQ(categories.count(c), 1u) << c;
  }
  const Json losses = Json::parse(opbench("list --json --category nn.loss" + dir).out);
  EXPECT_GE(losses.size(), 15u);
  for (const auto& e : losses) EXPECT_EQ(e["category"], "nn.loss");
  const Json inplace = Json::parse(opbench("list --json --tag inplace" + dir).out);
  EXPECT_GE(inplace.size(), 50u);
  for (const auto& e : inplace) {
    const std::string name = e["name"].get<std::string>();
    EXPECT_EQ(name.substr(0, name.find('.')).back(), '_') << name;  // "pow_.Scalar" is in place too
  }
  // Every operator has small, common and large cases (scalar_tensor has no size to grow).
  for (const char* shape_class : {"small", "common", "large"}) {
    std::set<std::string> names;
    std::istringstream lines(opbench(dir + " run --dry-run --threads 1 --shape-class " + std::string(shape_class)).out);
    for (std::string line; std::getline(lines, line);) names.insert(line.substr(0, line.find('/')));
    std::set<std::string> ops;
    for (const auto& e : all) {
      if (e["kind"] == "op") ops.insert(e["name"].get<std::string>());
    }
    for (const auto& op : ops) {
      if (op != "scalar_tensor" || std::string(shape_class) != "large") {
        EXPECT_EQ(names.count(op), 1u) << op << " has no " << shape_class << " case";
      }
    }
  }
  // No filter: the default suite is the common cases, forward, float32.
  const auto suite = opbench(dir + " run --dry-run");
  ASSERT_EQ(suite.code, 0) << suite.err;
  EXPECT_EQ(suite.out.find("/float16/"), std::string::npos);
  EXPECT_EQ(suite.out.find("/backward"), std::string::npos);
  // One intra-op thread unless asked (exec::default_threads); 0 stands for LibTorch's default, and
  // a count given twice is one value of the axis.
  EXPECT_NE(suite.out.find("/cpu/t1/forward\n"), std::string::npos);
  for (const char* other : {"/t0/", "/t2/", "/t4/"}) EXPECT_EQ(suite.out.find(other), std::string::npos) << other;
  const auto axis = opbench(dir + " run --dry-run --ops relu --shape-class small --threads 0,1,1,3");
  ASSERT_EQ(axis.code, 0) << axis.err;
  EXPECT_EQ(axis.out.find("/t0/"), std::string::npos);
  std::set<std::string> per_threads;
  std::istringstream axis_lines(axis.out);
  for (std::string line; std::getline(axis_lines, line);) per_threads.insert(line);
  EXPECT_EQ(std::count(axis.out.begin(), axis.out.end(), '\n'), static_cast<long>(per_threads.size()));
  EXPECT_NE(axis.out.find("/cpu/t1/forward\n"), std::string::npos);
  EXPECT_NE(axis.out.find("/cpu/t3/forward\n"), std::string::npos);
  const auto negative = opbench(dir + " run --dry-run --ops relu --threads -1");
  EXPECT_EQ(negative.code, 2) << negative.err;
  EXPECT_NE(negative.err.find("--threads takes thread counts of 1 or more, or 0 for LibTorch's default"),
            std::string::npos)
      << negative.err;
  const auto with_small = opbench(dir + " run --dry-run --shape-class small,common");
  EXPECT_GT(with_small.out.size(), suite.out.size());
  // The layout axis applies to cases with 4-d or 5-d inputs only.
  const auto layouts = opbench(dir + " run --dry-run --ops conv2d,relu --memory-format contiguous,channels_last");
  EXPECT_NE(layouts.out.find("conv2d/input=1x3x8x8,weight=4x3x3x3/float32/cpu/"), std::string::npos);
  EXPECT_NE(layouts.out.find("/forward/channels_last\n"), std::string::npos);
  EXPECT_EQ(layouts.out.find("relu/self=64/float32/cpu/t1/forward/channels_last"), std::string::npos);
  EXPECT_NE(layouts.out.find("relu/self=64/float32/cpu/t1/forward\n"), std::string::npos);
}

TEST_F(Cli, LongTailSamplesRunThroughTheSameExecutor) {
  const std::string dir = " --config-dir " + std::string(OPBENCH_CONFIG_DIR);
  const Json samples = Json::parse(opbench("list --json --kind sample" + dir).out);
  EXPECT_GE(samples.size(), 25u);
  for (const auto& e : samples) EXPECT_EQ(e["kind"], "sample");
  const Json branchy = Json::parse(opbench("list --json --tag IfElseBranch" + dir).out);
  EXPECT_GE(branchy.size(), 3u);
  const auto show = opbench("show bbox2delta" + dir);
  EXPECT_NE(show.out.find("delta_xywh_bbox_coder.py#L117"), std::string::npos) << show.out;
  // Cases by named axes; a sample without a catalogue source says what it is written from.
  const auto iou = opbench("show box_iou" + dir);
  EXPECT_NE(iou.out.find("boxes1=400, coordinates1=4, boxes2=72, coordinates2=4"), std::string::npos) << iou.out;
  const Json area = Json::parse(opbench("show box_area --json" + dir).out);
  EXPECT_EQ(area["axes"], Json({"images", "boxes_per_image"}));
  EXPECT_NE(area["written_from"].get<std::string>().find("torchvision.ops.box_area"), std::string::npos);
  EXPECT_FALSE(area.contains("host_sync"));
  // A name that is both an operator and a sample: the operator, a pointer to the sample, and
  // --kind to pick.
  const auto both = opbench("show scaled_dot_product_attention" + dir);
  EXPECT_NE(both.out.find("also a sample of this name: opbench show --kind sample scaled_dot_product_attention"),
            std::string::npos)
      << both.out;
  const auto sdpa = opbench("show --kind sample scaled_dot_product_attention" + dir);
  EXPECT_NE(sdpa.out.find("(sample, category longtail)"), std::string::npos) << sdpa.out;
  EXPECT_NE(sdpa.out.find("PaddleRec"), std::string::npos) << sdpa.out;
  EXPECT_EQ(opbench("show --kind sample conv2d" + dir).code, 2);
  // A sample whose original waits for the device says why.
  const auto margin = opbench("show margin_loss" + dir);
  EXPECT_NE(margin.out.find("waits for the device: as the original: labels and predictions are copied to the host"),
            std::string::npos)
      << margin.out;
  // A distillation loss differentiates the student's scores only, as its original.
  const Json gradient = Json::parse(opbench("show gradient_loss --json" + dir).out);
  EXPECT_EQ(gradient["grad_inputs"], Json({0}));
  const auto edge = opbench("run" + dir + " --samples edge_wbceloss --backward" + k_quick + " --output " + m_dir.file("edge.json"));
  ASSERT_EQ(edge.code, 0) << edge.err;
  // A sample computes in the floating dtypes it declares; a case at another is skipped, saying so.
  EXPECT_EQ(Json::parse(opbench("show bbox2delta --json" + dir).out)["dtypes"],
            Json({"float32", "float64", "float16", "bfloat16"}));
  const auto ints = opbench("run" + dir + " --samples bbox2delta,dec2bin --dtype int32,float64 --repetitions 1" + k_quick +
                            " --output " + m_dir.file("ints.json"));
  ASSERT_EQ(ints.code, 0) << ints.err;
  std::map<std::string, std::string> status;
  const Json ints_run = read_json(m_dir.file("ints.json"));
  for (const auto& c : ints_run["cases"]) {
    status[c["name"].get<std::string>() + " " + c["dtype"].get<std::string>()] = c["status"].get<std::string>();
    if (c["status"] == "skipped") {
      EXPECT_NE(c["message"].get<std::string>().find(" computes in float32"), std::string::npos) << c.dump();
    }
  }
  EXPECT_EQ(status["bbox2delta float64"], "ok");
  EXPECT_EQ(status["bbox2delta int32"], "skipped");
  EXPECT_EQ(status["dec2bin float64"], "skipped");  // integer codes alone: float32 only
  EXPECT_EQ(status["dec2bin float32"], "");         // not asked for
  const Json edge_run = read_json(m_dir.file("edge.json"));
  ASSERT_FALSE(edge_run["cases"].empty());
  for (const auto& c : edge_run["cases"]) EXPECT_EQ(c["status"], "ok") << c.dump();
  // A named axis swept from the command line: each catalogue case at each value.
  const auto swept = opbench("run" + dir + " --samples box_iou --axis boxes1=16,32" + k_quick + " --output " + m_dir.file("swept.json"));
  ASSERT_EQ(swept.code, 0) << swept.err;
  const Json swept_cases = read_json(m_dir.file("swept.json"))["cases"];
  ASSERT_EQ(swept_cases.size(), 6u);  // 3 catalogue cases x 2 values
  for (const auto& c : swept_cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    const auto boxes1 = c["case_id"].get<std::string>().substr(0, 20);
    EXPECT_TRUE(boxes1 == "box_iou/sizes=[16,4," || boxes1 == "box_iou/sizes=[32,4,") << c["case_id"];
  }
  const auto no_axis = opbench("run" + dir + " --samples box_iou --axis boxes=16" + k_quick);
  EXPECT_EQ(no_axis.code, 2);
  EXPECT_NE(no_axis.err.find("--axis boxes: no selected sample has that axis"), std::string::npos) << no_axis.err;
  // A parameter swept by name: the default is the catalogue's case itself, the others are given.
  const auto beta = opbench("run" + dir + " --samples smooth_l1_loss --axis beta=1,0.5 --axis rows=64" + k_quick +
                            " --output " + m_dir.file("beta.json"));
  ASSERT_EQ(beta.code, 0) << beta.err;
  const Json beta_cases = read_json(m_dir.file("beta.json"))["cases"];
  std::set<std::string> beta_ids;
  for (const auto& c : beta_cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    beta_ids.insert(c["case_id"].get<std::string>());
  }
  EXPECT_EQ(beta_ids, (std::set<std::string>{"smooth_l1_loss/sizes=[64,4]/float32/cpu/t1/forward",
                                             "smooth_l1_loss/sizes=[64,4],beta=0.5/float32/cpu/t1/forward"}));
  const auto bad_mode = opbench("run" + dir + " --samples bbox_overlaps --axis mode=iou,dice" + k_quick);
  EXPECT_EQ(bad_mode.code, 2);
  EXPECT_NE(bad_mode.err.find("bad --axis 'mode=iou,dice': 'dice' is not one of iou, iof, giou (bbox_overlaps's mode)"),
            std::string::npos) << bad_mode.err;
  const auto shown = opbench("show --kind sample bbox_overlaps");
  EXPECT_NE(shown.out.find("  mode: string, iou by default, one of iou, iof, giou"), std::string::npos) << shown.out;
  const std::string out = m_dir.file("samples.json");
  const auto r = opbench("run" + dir + " --samples bbox2delta,giou_loss --backward" + k_quick + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 12u);  // 2 samples x 3 catalogue cases x forward/backward
  const Json& first = json["cases"][0];
  EXPECT_EQ(first["case_id"], "bbox2delta/sizes=[128]/float32/cpu/t1/forward");
  EXPECT_EQ(first["kind"], "sample");
  EXPECT_EQ(first["status"], "ok");
  EXPECT_GT(first["work"]["aten_calls"].get<int>(), 10);  // a composite: dozens of small ops
  EXPECT_EQ(json["cases"][1]["direction"], "backward");
  EXPECT_EQ(json["cases"][1]["status"], "ok");
  EXPECT_EQ(opbench("run" + dir + " --samples nosuch" + k_quick).code, 2);
  // Samples re-run from a stored result like operators.
  const std::string again = m_dir.file("again.json");
  ASSERT_EQ(opbench("run --from " + out + k_quick + " --output " + again).code, 0);
  EXPECT_EQ(read_json(again)["cases"].size(), 12u);
}

TEST_F(Cli, ShippedConfigsAllBind) {
  const auto r = opbench("--config-dir " + std::string(OPBENCH_CONFIG_DIR) + " run --dry-run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("all configs bind"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opbench
