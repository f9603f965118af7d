#pragma once
// Machine peaks (from `opbench calibrate`) and where a case stands against them: its arithmetic
// intensity (FLOPs per byte) against the ridge point (peak FLOP/s / peak bytes/s) says whether
// it is memory- or compute-bound, and the relevant peak gives its percentage.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/cost/work.hpp"

namespace opbench::cost {

// One level of the memory hierarchy as `opbench calibrate` measured it: its capacity (one
// instance, as the kernel lists it for cpu0) and a copy's bandwidth with source and destination
// filling half of it (read + write bytes per second, through one ATen call: copy_).
struct CacheCeiling {
  std::string level;      // "L1d", "L2", "L3" (CPU); "L2" (CUDA)
  std::int64_t bytes = 0; // capacity
  double bandwidth = 0;   // bytes/s
};

struct Peaks {
  std::string device; // "cpu", "cuda:0"
  std::string dtype;  // "float32"
  int threads = 1;
  double copy_bandwidth = 0;        // bytes/s of a large copy (read + write)
  double triad_bandwidth = 0;       // bytes/s of a large a + b (two reads, one write)
  double gemm_flops = 0;            // FLOP/s of a large mm
  std::vector<CacheCeiling> caches; // data caches, smallest first (CPU: L1d L2 L3; CUDA: L2)
  Json context = Json::object();    // where and when they were measured

  double memory_bandwidth() const { return std::max(copy_bandwidth, triad_bandwidth); }
  double ridge() const { return gemm_flops / memory_bandwidth(); } // FLOP per byte
};

// Peaks by (device, dtype, threads); a file of `schema_version` 1.
class PeakStore {
public:
  // Reads `path`; an absent file is an empty store. Throws ResultsError on a malformed file.
  static PeakStore load(const std::string& path);
  void save(const std::string& path) const;

  const Peaks* find(const std::string& device, const std::string& dtype, int threads) const;
  // Adds or replaces the entry of the same (device, dtype, threads).
  void put(const Peaks& peaks);
  const std::vector<Peaks>& entries() const { return m_entries; }

private:
  std::vector<Peaks> m_entries;
};

// The hardware a context (a run's, or the one calibrate records per entry: machine/context.hpp)
// names for `device`: its `cpu_model` for "cpu", the `name` of its `cuda_devices` entry for
// "cuda:N";
// "" when it names none.
std::string hardware_of(const Json& context, const std::string& device);

// The entries of `store` that may judge a run on the hardware `run_context` names: those
// calibrated on the same CPU model or GPU. Each other entry for a device the run names is left out
// and said in `refused` ("cpu/float32/t1: calibrated on A, this is B"; or, when the entry names no
// hardware, "... records no hardware: calibrate again"); an entry for a device the run does not
// name stays (no case will ask for it).
PeakStore peaks_for(const PeakStore& store, const Json& run_context,
                    std::vector<std::string>& refused);

// $OPBENCH_PEAKS, else ${XDG_CACHE_HOME:-$HOME/.cache}/opbench/peaks.json.
std::string default_peaks_path();

// The memory roof of a call that moves `bytes`: the smallest calibrated cache level that holds
// them (its bandwidth, or DRAM's where that is higher: a small copy_ pays its dispatch), else
// "DRAM" and memory_bandwidth().
std::pair<std::string, double> memory_ceiling(const Peaks& peaks, double bytes);

// Fills the rates of `work` from the median time, and with `peaks` the bound and % of peak: a
// hierarchical roofline, each case against the roof of the memory level its bytes fit (its
// ridge point the mm peak over that level's bandwidth), as Intel Advisor and Nsight Compute draw
// it. A case over 100% gets the reason in WorkInfo::over_peak.
void apply_roofline(WorkInfo& work, double median_seconds, const Peaks* peaks);

} // namespace opbench::cost
