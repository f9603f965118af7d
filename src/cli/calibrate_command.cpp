// `opbench calibrate`: this machine's peaks, measured through LibTorch itself, stored for `run`.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <tuple>
#include <utility>

#include "commands.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/cost/roofline.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/machine/context.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/plan/planner.hpp"

namespace opbench::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> contexts{"cpu"};
  std::vector<std::string> dtypes{"float32"};
  std::vector<int> threads;
  std::string peaks;
  int bandwidth_mib = 256; // per buffer
  int gemm_n = 2048;
  double seconds = 1.0;
};

// Median seconds of one call of `op` with `args` at this point of the axes; throws on failure.
double median_of(const std::string& op, const Json& args, const std::string& dtype,
                 const std::string& device, int threads, double seconds) {
  const results::Case c = plan::make_case(op, catalog::bind_case(op, args, "calibrate"), dtype,
                                          device, threads, results::Direction::forward, 0);
  measure::ExecOptions options;
  options.memory = false;
  options.measure.min_runs = 5;
  options.measure.min_time = seconds / 2;
  options.measure.max_time = seconds;
  const auto result = exec::run_case(c, options);
  if (result.status != results::Status::ok)
    throw Error(c.case_id + ": " + result.message);
  return result.summary.median;
}

int calibrate(const CalibrateOptions& options, const GlobalOptions& global) {
  start_command(global);
  const std::string allocator = machine::configure_host_allocator("glibc"); // it measures in itself
  const std::string path = options.peaks.empty() ? cost::default_peaks_path() : options.peaks;
  cost::PeakStore store = cost::PeakStore::load(path);
  const std::vector<int> threads = threads_axis(options.threads);
  std::vector<std::string> devices;
  for (const auto& ctx : core::split_list(options.contexts)) {
    devices.push_back(core::parse_device(ctx).str());
    machine::check_device(devices.back());
  }
  for (const auto& device : devices) {
    for (const auto& dtype_name : core::split_list(options.dtypes)) {
      const std::string dtype = core::canonical_dtype(dtype_name);
      for (int t : threads) {
        // Bytes of one element of this dtype.
        const std::int64_t element_bytes = dtype == "float64" || dtype == "int64"      ? 8
                                           : dtype == "float16" || dtype == "bfloat16" ? 2
                                                                                       : 4;
        // Bytes/s of a copy_ (read + write) and of an add.out (two reads, one write) over
        // buffers of `copy_bytes` and `triad_bytes` each. add.out writes into a preallocated
        // tensor: no allocation (a fresh buffer as large as device memory's would come from
        // mmap, page faults and all, on every call), and its out= is no input, so it is timed
        // in blocks; copy_ writes its `self`, so it is timed one call at a time after a restore.
        const auto copy_and_triad = [&](std::int64_t copy_bytes, std::int64_t triad_bytes) {
          const std::int64_t c = std::max<std::int64_t>(1, copy_bytes / element_bytes);
          const std::int64_t a = std::max<std::int64_t>(1, triad_bytes / element_bytes);
          const Json cv = Json::array({c});
          const Json av = Json::array({a});
          const double copy_s =
              median_of("copy_", {{"self", cv}, {"src", cv}}, dtype, device, t, options.seconds);
          const double triad_s = median_of("add.out", {{"self", av}, {"other", av}, {"out", av}},
                                           dtype, device, t, options.seconds);
          return std::pair<double, double>{2.0 * static_cast<double>(c * element_bytes) / copy_s,
                                           3.0 * static_cast<double>(a * element_bytes) / triad_s};
        };
        cost::Peaks peaks;
        peaks.device = device;
        peaks.dtype = dtype;
        peaks.threads = t;
        const std::int64_t buffer = static_cast<std::int64_t>(options.bandwidth_mib) * 1024 * 1024;
        std::tie(peaks.copy_bandwidth, peaks.triad_bandwidth) = copy_and_triad(buffer, buffer);
        // The hierarchical roofline's levels (the CPU's data caches, a GPU's L2), measured as
        // device memory is, the buffers filling half of each level so they stay in it between
        // calls (copy_: two of a quarter; add.out: three of a sixth), the faster counting: a
        // copy_'s restore keeps one more buffer in the level, and on CUDA a copy_ is one call a
        // graph replay, mostly its launch (docs/roofline.md).
        for (const auto& [level, capacity] : machine::data_caches(device)) {
          const auto [copy, triad] = copy_and_triad(capacity / 4, capacity / 6);
          peaks.caches.push_back({level, capacity, std::max(copy, triad)});
        }
        const Json square = Json::array({options.gemm_n, options.gemm_n});
        const double g = static_cast<double>(options.gemm_n);
        peaks.gemm_flops = 2 * g * g * g /
                           median_of("mm", {{"self", square}, {"mat2", square}}, dtype, device, t,
                                     options.seconds);
        peaks.context = machine::collect_context(global.command_line, 0, allocator, {device});
        peaks.context.erase("libtorch_build");
        peaks.context.erase("parallel_info");
        peaks.context["buffer_mib"] = options.bandwidth_mib;
        peaks.context["gemm_n"] = options.gemm_n;
        store.put(peaks);
        std::cout << fmt::format("{} {} t{}: copy {:.1f} GB/s, triad {:.1f} GB/s, mm {}x{} {:.1f} "
                                 "GFLOP/s; ridge {:.1f} FLOP/byte\n",
                                 device, dtype, t, peaks.copy_bandwidth / 1e9,
                                 peaks.triad_bandwidth / 1e9, options.gemm_n, options.gemm_n,
                                 peaks.gemm_flops / 1e9, peaks.ridge());
        for (const auto& c : peaks.caches) {
          std::cout << fmt::format("  {} ({}): copy {:.1f} GB/s\n", c.level,
                                   core::format_bytes(c.bytes), c.bandwidth / 1e9);
        }
      }
    }
  }
  store.save(path);
  std::cout << "peaks: " << path << "\n";
  return k_exit_ok;
}

} // namespace

void add_calibrate_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Measure this machine's memory bandwidth and GEMM throughput through LibTorch");
  cmd->add_option("--ctx", options->contexts, "Devices, comma-separated")->capture_default_str();
  cmd->add_option("--dtype", options->dtypes, "Dtypes, comma-separated")->capture_default_str();
  cmd->add_option("--threads", options->threads,
                  "Intra-op threads, comma-separated (default: 1, as run's; 0: LibTorch's default)")
      ->delimiter(',')
      ->check(in_range(run::limits::threads));
  cmd->add_option(
      "--peaks", options->peaks,
      "Peaks file to update (default: $OPBENCH_PEAKS, else ~/.cache/opbench/peaks.json)");
  cmd->add_option("--buffer-mib", options->bandwidth_mib, "Size of each bandwidth buffer in MiB")
      ->check(in_range(limits::buffer_mib))
      ->capture_default_str();
  cmd->add_option("--gemm-n", options->gemm_n, "Size of the square mm")
      ->check(in_range(limits::gemm_n))
      ->capture_default_str();
  cmd->add_option("--seconds", options->seconds, "Measuring time per figure at most")
      ->check(in_range(limits::seconds))
      ->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = calibrate(*options, global); });
}

} // namespace opbench::cli
