#pragma once
// A canary of the machine's speed: a fixed chain of integer multiply-adds (no memory traffic,
// no LibTorch call), about 0.1 ms on a 2.5 GHz core. It takes the same time whenever the core runs
// at full speed, so a slower canary means a slow spell (a busy neighbour, a throttled or shared
// core); see run/schedule.hpp. It runs on the calling thread only: it is split with ATen's
// parallel_for, which is a serial loop in code built without OpenMP, as opbench is.
//
// A memory canary beside it, for the cases that stream from memory: LibTorch's sum over a buffer
// twice the last-level cache, on the intra-op threads the case runs on, timed by the wall clock.
// On a shared host it moves with things the speed canary cannot see (the host may run a guest's
// vCPUs together only now and then); the readings that showed it are in
// docs/reproducibility-log.md ("The canaries").

#include <cstdint>

namespace opbench::machine {

// One reading: seconds of the loop, `threads` times over (see above: on the calling thread).
double canary_reading(int threads);

// The canary: the fastest of three readings back to back (~0.3 ms). A timer tick or a short
// interrupt lands in one reading; a slow spell (a busy neighbour, a throttled core) lasts longer
// and slows all three (bench_overhead canary measures how often each would call a repetition slow).
double canary_seconds(int threads);

// The memory canary's buffer: twice the last-level cache (device_support's last_level_cache_bytes),
// so each reading streams from memory. Mapped on its own, outside the heap the cases allocate from,
// on transparent huge pages where the kernel allows (as LibTorch puts the cases' large tensors; the
// kernel's mode is in context.host_allocator).
std::int64_t memory_canary_bytes();

// Cases whose inputs fill at least this much (a quarter of the last-level cache) stream from
// memory: the driver brackets their CPU repetitions with the memory canary. (Bracketing every
// multi-threaded case too was measured and not kept: docs/reproducibility-log.md.)
std::int64_t memory_bound_bytes();

// The memory canary: the faster of two sums of the whole buffer on LibTorch's intra-op threads
// (at::get_num_threads()), in bytes per second of wall time (~1-2 ms each here).
double memory_canary_bandwidth();

} // namespace opbench::machine
