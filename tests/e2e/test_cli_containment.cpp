// End-to-end: kernels of one's own that crash, hang, exit and lie (tests/data/libs/faulty_ops.cpp)
// beside ATen's and a right one. A crash costs its own case only, naming the signal, the phase and
// the repetition; every other case keeps all its repetitions; a wrong kernel fails its check and
// shows no speedup (run/processes.hpp, results::OutputCheck, docs/custom-ops.md).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "cli_fixture.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

const std::string k_faulty = OPBENCH_FAULTY;

// Case id -> its record.
std::map<std::string, Json> by_id(const Json& result) {
  std::map<std::string, Json> out;
  for (const auto& c : result["cases"])
    out[c["case_id"].get<std::string>()] = c;
  return out;
}

TEST_F(Cli, ASegfaultingKernelFailsItsOwnCaseOnlyAndAWrongOneShowsNoSpeedup) {
  // Default processes (3) and repetitions (6), every case in every process (a case known after
  // two would have 4: --interval-target 0).
  const std::string out = m_dir.file("faulty.json");
  const auto r =
      opbench("run --load-library " + k_faulty + " --config " + k_data +
              "/faulty_softmax.json --interval-target 0 --output " + out + k_quick_stopping);
  EXPECT_EQ(r.code, 1) << r.err;
  const auto cases = by_id(read_json(out));
  ASSERT_EQ(cases.size(), 12u);
  const std::string large = "/self=512x1024/float32/cpu/t1/forward";
  const std::string small = "/self=64x64/float32/cpu/t1/forward";
  for (const auto& [id, c] : cases) {
    const std::string message = c["message"];
    if (id == "faulty::softmax_segv_large" + large) {
      EXPECT_EQ(c["status"], "error") << id;
      EXPECT_EQ(message.rfind("SIGSEGV in the check of its outputs, repetition ", 0), 0u)
          << message;
      EXPECT_NE(message.find("it failed in 3 of the 3 process(es) that ran it"), std::string::npos)
          << message;
    } else if (id.rfind("faulty::softmax_wrong", 0) == 0) {
      EXPECT_EQ(c["status"], "error") << id; // at every size
      EXPECT_NE(message.find("before its timed blocks: its outputs differ from the baseline"),
                std::string::npos)
          << message;
      EXPECT_FALSE(c["check"]["passed"].get<bool>()) << id;
    } else {
      // ATen's cases and the right kernels, the crashing one's small case among them.
      EXPECT_EQ(c["status"], "ok") << id << ": " << message;
      EXPECT_EQ(c["estimate"]["repetitions"], 6) << id;
      EXPECT_EQ(message, "") << id;
    }
  }
  // Implementations record their check: before and after the timing, in every repetition.
  const Json& right = cases.at("faulty::softmax_right" + small);
  EXPECT_EQ(right["check"]["before"], 6);
  EXPECT_EQ(right["check"]["after"], 6);
  EXPECT_TRUE(right["check"]["passed"].get<bool>());
  EXPECT_EQ(right["check"]["against"], "softmax/self=64x64,dim=-1/float32/cpu/t1/forward");
  // The supervisor said what happened as it happened.
  EXPECT_NE(r.err.find("process 1 of 3: faulty::softmax_segv_large" + large + ": SIGSEGV in "),
            std::string::npos)
      << r.err;

  const auto variants = opbench("export --format variants --input " + out);
  ASSERT_EQ(variants.code, 0) << variants.err;
  auto row_of = [&](const std::string& id) {
    const auto at = variants.out.find("`" + id + "`");
    EXPECT_NE(at, std::string::npos) << id << "\n" << variants.out;
    return at == std::string::npos ? std::string()
                                   : variants.out.substr(at, variants.out.find('\n', at) - at);
  };
  for (const std::string id : {"faulty::softmax_wrong" + small, "faulty::softmax_wrong" + large,
                               "faulty::softmax_segv_large" + large}) {
    const std::string row = row_of(id);
    EXPECT_NE(row.find("no speedup: "), std::string::npos) << row;
    EXPECT_EQ(row.find("| x"), std::string::npos) << row;
  }
  EXPECT_NE(row_of("faulty::softmax_right" + large).find("| passed, 6 before and 6 after timing"),
            std::string::npos);
  EXPECT_EQ(variants.out.find("| faulty::softmax_wrong |"), std::string::npos) << variants.out;
}

TEST_F(Cli, KernelsThatHangExitCacheOnAddressesOrDriftAreNamedForWhatTheyDo) {
  const std::string config = m_dir.file("all.json");
  std::ofstream(config) << R"({"variants": [{"name": "row_softmax", "category": "custom",
   "implementations": [{"op": "softmax", "args": {"dim": -1}}, {"op": "faulty::softmax_hang_large"},
     {"op": "faulty::softmax_exit_large"}, {"op": "faulty::softmax_by_address"},
     {"op": "faulty::softmax_drifts"}, {"op": "faulty::softmax_undefined"},
     {"op": "faulty::softmax_throws"}],
   "cases": [{"shape_class": "common", "args": {"self": "512x1024"}}]}]})";
  const std::string out = m_dir.file("all-out.json");
  const auto r = opbench("run --load-library " + k_faulty + " --config " + config +
                         " --processes 2 --repetitions 2 --case-timeout 2 --output " + out +
                         " --threads 1 --warmup 1 --runs 3 --min-time 0.01 --max-time 0.05 "
                         "--process-warmup 0");
  EXPECT_EQ(r.code, 1) << r.err;
  const auto cases = by_id(read_json(out));
  const std::string point = "/self=512x1024/float32/cpu/t1/forward";
  auto message = [&](const std::string& op) {
    return cases.at(op + point)["message"].get<std::string>();
  };
  EXPECT_EQ(cases.at("faulty::softmax_hang_large" + point)["status"], "timeout");
  EXPECT_EQ(
      message("faulty::softmax_hang_large").rfind("held the check of its outputs, repetition ", 0),
      0u)
      << message("faulty::softmax_hang_large");
  EXPECT_NE(message("faulty::softmax_hang_large").find("past the 2 s limit (--case-timeout)"),
            std::string::npos);
  EXPECT_EQ(message("faulty::softmax_exit_large").rfind("exit 0 in the check of its outputs", 0),
            0u)
      << message("faulty::softmax_exit_large");
  // Right on its first values, wrong on the same addresses refilled: caught after the timing.
  EXPECT_NE(
      message("faulty::softmax_by_address").find("after its timed blocks: its outputs differ"),
      std::string::npos)
      << message("faulty::softmax_by_address");
  EXPECT_NE(message("faulty::softmax_drifts").find("its outputs differ"), std::string::npos)
      << message("faulty::softmax_drifts");
  EXPECT_NE(message("faulty::softmax_undefined")
                .find("an undefined tensor where the baseline's is a tensor"),
            std::string::npos)
      << message("faulty::softmax_undefined");
  EXPECT_NE(message("faulty::softmax_throws").find("this kernel always fails"), std::string::npos);
  EXPECT_EQ(cases.at("softmax/self=512x1024,dim=-1/float32/cpu/t1/forward")["status"], "ok");
}

TEST_F(Cli, IsolatedAndSingleProcessRunsAreSupervisedToo) {
  const std::string config = m_dir.file("segv.json");
  std::ofstream(config) << R"({"operators": [{"op": "faulty::softmax_segv_large", "cases": [
      {"args": {"self": "64x64"}}, {"args": {"self": "512x1024"}}]},
    {"op": "relu", "cases": [{"args": {"self": "512x1024"}}]}]})";
  for (const std::string how : {" --processes 1", " --isolate"}) {
    const std::string out = m_dir.file("segv-out.json");
    const auto r = opbench("run --load-library " + k_faulty + " --config " + config +
                           " --repetitions 2 --output " + out + how + k_quick_stopping);
    EXPECT_EQ(r.code, 1) << how << r.err;
    const auto cases = by_id(read_json(out));
    ASSERT_EQ(cases.size(), 3u) << how;
    for (const auto& [id, c] : cases) {
      if (id == "faulty::softmax_segv_large/self=512x1024/float32/cpu/t1/forward") {
        EXPECT_EQ(c["status"], "error") << how;
        // (the phase is whichever call met the large input first: warmup, or the recording)
        EXPECT_NE(c["message"].get<std::string>().find("SIGSEGV in "), std::string::npos)
            << how << c["message"];
        EXPECT_NE(c["message"].get<std::string>().find(", repetition "), std::string::npos)
            << how << c["message"];
        // No temp path of the process that died, no progress line of its.
        EXPECT_EQ(c["message"].get<std::string>().find("/tmp/"), std::string::npos) << c["message"];
      } else {
        EXPECT_EQ(c["status"], "ok") << how << id << c["message"];
        EXPECT_EQ(c["estimate"]["repetitions"], 2) << how << id;
      }
    }
  }
}

} // namespace
} // namespace opbench
