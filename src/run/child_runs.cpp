#include "opbench/run/child_runs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include <fstream>
#include <iterator>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/interrupt.hpp"

extern char** environ;

namespace opbench::run {
namespace {

// The options that decide how a child measures, as this run was given them.
std::vector<std::string> measuring_args(const RunSettings& options) {
  const auto& m = options.exec.measure;
  std::vector<std::string> args = {"--warmup",         std::to_string(m.warmup),
                                   "--runs",           std::to_string(m.min_runs),
                                   "--min-time",       fmt::format("{}", m.min_time),
                                   "--max-time",       fmt::format("{}", m.max_time),
                                   "--target-noise",   fmt::format("{}", m.target_noise),
                                   "--block-time",     fmt::format("{}", m.block_time),
                                   "--host-allocator", options.host_allocator,
                                   "--timer",          core::name_of(options.exec.timer),
                                   "--estimator",      options.estimator,
                                   "--process-warmup", fmt::format("{}", options.process_warmup)};
  if (options.exec.cold)
    args.emplace_back("--cold");
  return args;
}

// How a child ended: not started, or its wait status.
struct Exit {
  bool started = false;
  int status = 0;
};

// Starts this binary with `args` (stdout to /dev/null; stderr to `log`, or this process's own
// when empty) and waits for it. The child dies with this process (PR_SET_PDEATHSIG: SIGTERM, which
// keeps its journal), and a signal this process catches meanwhile is passed on to it
// (interrupt.hpp).
Exit spawn_and_wait(std::vector<std::string> args, const std::string& log) {
  // Everything the child needs is made before fork: between fork and exec it only makes system
  // calls (the parent has LibTorch's threads; nothing else is safe there).
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* log_path = log.empty() ? nullptr : log.c_str();
  const pid_t parent = ::getpid();
  Exit out;
  const pid_t pid = ::fork();
  if (pid < 0)
    return out;
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent)
      ::_exit(127); // the parent is already gone
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0)
      ::dup2(null, STDOUT_FILENO);
    if (log_path != nullptr) {
      const int fd = ::open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0)
        ::dup2(fd, STDERR_FILENO);
    }
    ::execve("/proc/self/exe", argv.data(), environ);
    ::_exit(127);
  }
  out.started = true;
  set_current_child(pid);
  while (::waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
  }
  set_current_child(0);
  return out;
}

std::string describe(const Exit& exit) {
  if (!exit.started)
    return "it could not be started";
  return WIFSIGNALED(exit.status) ? "signal " + std::to_string(WTERMSIG(exit.status))
                                  : "exit " + std::to_string(WEXITSTATUS(exit.status));
}

} // namespace

void write_plan(const std::vector<results::Case>& cases, const std::string& path) {
  results::ResultSet planned;
  for (const auto& c : cases) {
    results::CaseResult r;
    r.c = c;
    r.status = results::Status::skipped;
    r.message = "planned";
    planned.cases.push_back(r);
  }
  core::write_atomically(path, results::to_json(planned).dump());
}

results::CaseResult run_isolated(const results::Case& c, const std::string& plan_file,
                                 const RunSettings& options, bool memory, bool trace,
                                 int repetition, const std::string& scratch, int serial) {
  const std::string output = scratch + "/repetition-" + std::to_string(serial) + ".json";
  const std::string log = scratch + "/repetition-" + std::to_string(serial) + ".log";
  std::vector<std::string> args = {"opbench",
                                   "run",
                                   "--from",
                                   plan_file,
                                   "--case",
                                   c.case_id,
                                   "--output",
                                   output,
                                   "--repetitions",
                                   "1",
                                   "--processes",
                                   "1",
                                   "--no-interleave",
                                   "--retries",
                                   "0",
                                   "--placement",
                                   std::to_string(repetition)};
  const auto measuring = measuring_args(options);
  args.insert(args.end(), measuring.begin(), measuring.end());
  if (!memory)
    args.emplace_back("--no-memory");
  if (trace)
    args.insert(args.end(), {"--trace", options.trace_dir});
  const Exit exit = spawn_and_wait(args, log);
  results::CaseResult failed;
  failed.c = c;
  failed.status = results::Status::error;
  if (!exit.started) {
    failed.message = "cannot start a fresh opbench process for this repetition";
    return failed;
  }
  if (core::path_exists(output)) {
    auto set = results::load_results(output);
    if (set.cases.size() == 1) {
      results::CaseResult result = std::move(set.cases.front());
      result.c = c;
      return result;
    }
  }
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  failed.message = "the fresh process for this repetition ended without a result (" +
                   describe(exit) + "): " + core::trim(text);
  return failed;
}

ProcessPart run_process(const std::string& plan_file, const RunSettings& options, int index, int of,
                        int repetitions, int first_placement, bool memory, bool trace,
                        const std::string& scratch) {
  const std::string output = scratch + "/process-" + std::to_string(index + 1) + ".json";
  std::vector<std::string> args = {"opbench",
                                   "--log-level",
                                   options.log_level,
                                   "run",
                                   "--from",
                                   plan_file,
                                   "--output",
                                   output,
                                   "--repetitions",
                                   std::to_string(repetitions),
                                   "--processes",
                                   "1",
                                   "--placement",
                                   std::to_string(first_placement),
                                   "--process-label",
                                   fmt::format("{}/{}", index + 1, of),
                                   "--seed",
                                   std::to_string(options.seed),
                                   "--retries",
                                   std::to_string(options.retries),
                                   "--slow-tolerance",
                                   fmt::format("{}", options.slow_tolerance),
                                   "--bandwidth-tolerance",
                                   fmt::format("{}", options.bandwidth_tolerance)};
  const auto measuring = measuring_args(options);
  args.insert(args.end(), measuring.begin(), measuring.end());
  if (!options.interleave)
    args.emplace_back("--no-interleave");
  if (!memory)
    args.emplace_back("--no-memory");
  if (trace)
    args.insert(args.end(), {"--trace", options.trace_dir});
  if (!options.peaks.empty())
    args.insert(args.end(), {"--peaks", options.peaks});
  const Exit exit = spawn_and_wait(args, "");
  ProcessPart part;
  const bool finished = exit.started && WIFEXITED(exit.status) && WEXITSTATUS(exit.status) <= 1;
  // A process that was killed still kept every case and repetition it finished in its journal.
  for (const auto& path : {output, results::journal_path_for(output)}) {
    if (!core::path_exists(path))
      continue;
    try {
      part.results = results::load_results(path);
    } catch (const ResultsError& e) {
      part.problem = e.what();
      continue;
    }
    if (finished && path == output)
      return part;
    break;
  }
  part.problem = fmt::format("process {} of {} ended without finishing ({}){}", index + 1, of,
                             describe(exit), part.problem.empty() ? "" : ": " + part.problem);
  return part;
}

} // namespace opbench::run
