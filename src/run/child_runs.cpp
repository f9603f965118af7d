#include "opbench/run/child_runs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fstream>
#include <iterator>
#include <set>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/interrupt.hpp"

extern char** environ;

namespace opbench::run {
namespace {

using Exit = ChildExit;

// Reads the lines a growing file gains (a child's journal), whole lines only.
class FileTail {
public:
  explicit FileTail(std::string path) : m_path(std::move(path)) {}
  std::vector<std::string> new_lines() {
    std::vector<std::string> lines;
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return lines;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::pread(fd, buffer, sizeof buffer, m_offset);
      if (n <= 0)
        break;
      m_offset += n;
      m_partial.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    std::size_t start = 0;
    for (std::size_t end; (end = m_partial.find('\n', start)) != std::string::npos;
         start = end + 1) {
      lines.push_back(m_partial.substr(start, end - start));
    }
    m_partial.erase(0, start);
    return lines;
  }

private:
  std::string m_path;
  off_t m_offset = 0;
  std::string m_partial;
};

// What the supervisor watches besides the child's end.
struct Watch : HoldLimits {
  std::function<void()> poll; // every k_poll_ms (reads the child's journal)
};

// A child started in a process group of its own (stdout to `out_path`, or /dev/null when empty;
// stderr to `log`, or this process's own when empty), on `cpus` when given (sched_setaffinity
// before exec; empty: this process's CPUs). It dies with this process (PR_SET_PDEATHSIG: SIGTERM,
// which keeps its journal). -1 when it could not be forked.
pid_t spawn(const std::string& program, std::vector<std::string> args, const std::string& out_path,
            const std::string& log, const std::vector<int>& cpus) {
  // Everything the child needs is made before fork: between fork and exec it only makes system
  // calls (the parent has LibTorch's threads; nothing else is safe there).
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* log_path = log.empty() ? nullptr : log.c_str();
  const char* stdout_path = out_path.empty() ? "/dev/null" : out_path.c_str();
  const char* path = program.c_str();
  cpu_set_t cpu_set;
  CPU_ZERO(&cpu_set);
  bool settable = true; // CPU_SET past CPU_SETSIZE writes out of the set
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE)
      CPU_SET(cpu, &cpu_set);
    else
      settable = false;
  }
  const bool pin = !cpus.empty();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0)
    return pid;
  ::setpgid(0, 0); // its group: a kill reaches whatever it starts (a stage's compiler)
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent)
    ::_exit(127); // the parent is already gone
  if (pin && (!settable || ::sched_setaffinity(0, sizeof cpu_set, &cpu_set) != 0))
    ::_exit(126); // never on other CPUs than it was given
  const int stdout_fd = ::open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (stdout_fd >= 0)
    ::dup2(stdout_fd, STDOUT_FILENO);
  if (log_path != nullptr) {
    const int fd = ::open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
      ::dup2(fd, STDERR_FILENO);
  }
  ::execve(path, argv.data(), environ);
  ::_exit(127);
}

// Starts `program` with `args` (spawn) and supervises it until it ends (Watch); a signal this
// process catches meanwhile is passed on to it (interrupt.hpp).
Exit spawn_and_watch(const std::string& program, std::vector<std::string> args,
                     const std::string& out_path, const std::string& log, const Watch& watch) {
  Exit out;
  const pid_t pid = spawn(program, std::move(args), out_path, log, {});
  if (pid < 0)
    return out;
  ::setpgid(pid, pid); // (both sides set it, so neither races the other)
  out.started = true;
  set_current_child(pid);
  std::string holding; // the case and repetition held ("" none), and since when
  auto since = std::chrono::steady_clock::now();
  std::uint64_t serial = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &out.status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (watch.poll)
      watch.poll();
    if (!watch.hold_file.empty() && !out.timed_out) {
      const auto now = std::chrono::steady_clock::now();
      if (const auto held = measure::read_hold_record(watch.hold_file);
          held && held->serial != serial) {
        serial = held->serial;
        const std::string key =
            held->released ? ""
                           : held->case_id + "\n" + std::to_string(held->repetition) +
                                 (held->phase == measure::Phase::compile ? "\ncompile" : "");
        if (key != holding) {
          holding = key;
          since = now;
        }
        out.limit = held->phase == measure::Phase::compile ? watch.compile_limit : watch.limit;
      }
      if (!holding.empty() && std::chrono::duration<double>(now - since).count() > out.limit) {
        out.timed_out = true;
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
      }
    }
    ::poll(nullptr, 0, k_poll_ms);
  }
  set_current_child(0);
  ::kill(-pid, SIGKILL); // whatever it left behind in its group
  return out;
}

std::string describe_exit(const Exit& exit) {
  if (!exit.started)
    return "it could not be started";
  return WIFSIGNALED(exit.status) ? signal_name(WTERMSIG(exit.status))
                                  : "exit " + std::to_string(WEXITSTATUS(exit.status));
}

} // namespace

std::string last_words(const std::string& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    line = core::trim(line);
    if (line.empty() || core::starts_with(line, "opbench: ") || core::starts_with(line, "["))
      continue;
    last = line;
  }
  return last.size() > 300 ? last.substr(0, 300) + "..." : last;
}

ChildExit run_program(const std::string& program, const std::vector<std::string>& args,
                      const std::string& out, const std::string& log, const HoldLimits& limits) {
  Watch watch;
  static_cast<HoldLimits&>(watch) = limits;
  return spawn_and_watch(program, args, out, log, watch);
}

std::vector<ChildExit> run_programs(const std::vector<Program>& programs) {
  if (programs.size() > static_cast<std::size_t>(k_child_slots))
    throw Error(fmt::format("run_programs: {} programs at once, at most {}", programs.size(),
                            k_child_slots));
  std::vector<ChildExit> exits(programs.size());
  std::vector<pid_t> pids(programs.size(), -1);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const Program& p = programs[i];
    pids[i] = spawn(p.path, p.args, p.out, p.log, p.cpus);
    if (pids[i] < 0)
      continue;
    ::setpgid(pids[i], pids[i]);
    exits[i].started = true;
    set_current_child(pids[i], static_cast<int>(i));
  }
  for (std::size_t running = exits.size(); running > 0;) {
    running = 0;
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (pids[i] < 0)
        continue;
      const pid_t done = ::waitpid(pids[i], &exits[i].status, WNOHANG);
      if (done == pids[i] || (done < 0 && errno != EINTR)) {
        set_current_child(0, static_cast<int>(i));
        ::kill(-pids[i], SIGKILL); // whatever it left behind in its group
        pids[i] = -1;
        continue;
      }
      ++running;
    }
    if (running > 0)
      ::poll(nullptr, 0, k_poll_ms);
  }
  return exits;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0)
    return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  }
  return cpus;
}

std::string describe(const ChildExit& exit) {
  return describe_exit(exit);
}

std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation
                                 : "signal " + std::to_string(signal);
}

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
  const std::string stem = scratch + "/repetition-" + std::to_string(serial);
  const std::string output = stem + ".json";
  const std::string log = stem + ".log";
  const std::string hold = stem + ".hold";
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
                                   std::to_string(repetition),
                                   "--hold-file",
                                   hold,
                                   "--run-repetitions",
                                   std::to_string(options.repetitions)};
  const auto measuring = measuring_args(options);
  args.insert(args.end(), measuring.begin(), measuring.end());
  if (!memory)
    args.emplace_back("--no-memory");
  if (trace)
    args.insert(args.end(), {"--trace", options.trace_dir});
  Watch watch;
  watch.hold_file = hold;
  watch.limit = case_timeout_seconds(options);
  watch.compile_limit = k_compile_timeout;
  const Exit exit = spawn_and_watch("/proc/self/exe", args, "", log, watch);
  results::CaseResult failed;
  failed.c = c;
  failed.status = results::Status::error;
  if (!exit.started) {
    failed.message = "cannot start a fresh opbench process for this repetition";
    return failed;
  }
  if (!exit.timed_out && core::path_exists(output)) {
    auto set = results::load_results(output);
    if (set.cases.size() == 1) {
      results::CaseResult result = std::move(set.cases.front());
      result.c = c;
      return result;
    }
  }
  ProcessEnd end;
  end.how = describe_exit(exit);
  end.timed_out = exit.timed_out;
  end.limit = exit.limit;
  end.held = measure::read_hold_file(hold);
  if (exit.timed_out)
    failed.status = results::Status::timeout;
  const std::string said = last_words(log);
  failed.message =
      "its fresh process ended without a result: " + describe_failure(end, options.repetitions) +
      (said.empty() ? "" : " (it said: " + said + ")");
  return failed;
}

ProcessEnd run_process(const std::string& plan_file, const RunSettings& options,
                       const ProcessTask& task, const ProcessEvents& events,
                       const std::string& scratch) {
  const std::string stem =
      fmt::format("{}/process-{}-{}", scratch, task.index + 1, task.attempt + 1);
  const std::string output = stem + ".json";
  const std::string hold = stem + ".hold";
  std::vector<std::string> args = {"opbench",
                                   "--log-level",
                                   options.log_level,
                                   "run",
                                   "--from",
                                   plan_file,
                                   "--output",
                                   output,
                                   "--repetitions",
                                   std::to_string(task.repetitions),
                                   "--processes",
                                   "1",
                                   "--placement",
                                   std::to_string(task.first_placement),
                                   "--process-label",
                                   fmt::format("{}/{}", task.index + 1, task.of),
                                   "--seed",
                                   std::to_string(options.seed),
                                   "--retries",
                                   std::to_string(options.retries),
                                   "--slow-tolerance",
                                   fmt::format("{}", options.slow_tolerance),
                                   "--bandwidth-tolerance",
                                   fmt::format("{}", options.bandwidth_tolerance),
                                   "--hold-file",
                                   hold,
                                   "--run-repetitions",
                                   std::to_string(options.repetitions)};
  const auto measuring = measuring_args(options);
  args.insert(args.end(), measuring.begin(), measuring.end());
  // A record the process reads at its start, in a file beside its output.
  auto hand_on = [&](const std::string& flag, const std::string& suffix, const Json& record) {
    core::write_atomically(stem + suffix, record.dump());
    args.insert(args.end(), {flag, stem + suffix});
  };
  if (!task.resume.empty())
    hand_on("--resume", ".resume.json", to_json(task.resume));
  if (!task.calibration.empty() && options.exec.measure.warm_tolerance > 0)
    hand_on("--calibration", ".calibration.json", to_json(task.calibration));
  if (!options.interleave)
    args.emplace_back("--no-interleave");
  if (!task.memory)
    args.emplace_back("--no-memory");
  if (task.trace)
    args.insert(args.end(), {"--trace", options.trace_dir});
  if (!options.peaks.empty())
    args.insert(args.end(), {"--peaks", options.peaks});

  ProcessEnd end;
  // The child's journal, read as it grows: what it finishes is told at once (the run's own lines
  // and journal follow the child's), what it keeps of unfinished cases as it comes.
  FileTail journal(results::journal_path_for(output));
  std::set<std::string> told; // finished cases told to `events`
  bool first_line = true;
  int line_number = 0;
  auto read_journal = [&] {
    for (const std::string& text : journal.new_lines()) {
      ++line_number;
      const std::optional<Json> parsed = core::parse_json(text);
      if (!parsed)
        continue; // (a line cut short by a child killed mid-write)
      try {
        results::JournalLine line = results::journal_line_from_json(
            *parsed, first_line,
            results::journal_path_for(output) + ":" + std::to_string(line_number));
        first_line = false;
        if (line.kind == results::JournalLine::Kind::repetition) {
          events.repetition(std::move(line.result), line.repetition);
        } else if (line.kind == results::JournalLine::Kind::finished &&
                   told.insert(line.result.c.case_id).second) {
          events.finished(std::move(line.result));
        }
      } catch (const ResultsError& e) {
        end.problem = e.what();
      }
    }
  };
  Watch watch;
  watch.hold_file = hold;
  watch.limit = case_timeout_seconds(options);
  watch.compile_limit = k_compile_timeout;
  watch.poll = read_journal;
  const Exit exit = spawn_and_watch("/proc/self/exe", args, "", "", watch);
  read_journal(); // what it wrote last (a process that died leaves its journal)
  end.how = describe_exit(exit);
  end.timed_out = exit.timed_out;
  end.limit = exit.limit;
  // A result file is written last: a process that has one measured everything it was given
  // (one that crashed after it, in a library's exit handler say, is told as such).
  if (exit.started && !exit.timed_out && core::path_exists(output)) {
    try {
      results::ResultSet set = results::load_results(output);
      for (auto& r : set.cases) {
        if (told.insert(r.c.case_id).second)
          events.finished(std::move(r));
      }
      end.summary = set.summary;
      end.finished = true;
      if (!WIFEXITED(exit.status) || WEXITSTATUS(exit.status) > 1) {
        end.problem = fmt::format("process {} of {} ended with {} after writing its results",
                                  task.index + 1, task.of, end.how);
      }
      return end;
    } catch (const ResultsError& e) {
      end.problem = e.what();
    }
  }
  end.held = measure::read_hold_file(hold);
  return end;
}

} // namespace opbench::run
