#pragma once
// A canary of the machine's speed: a fixed chain of integer multiply-adds (no memory traffic,
// no LibTorch call), about 0.1 ms on a 2.5 GHz core, run once on each of `threads` intra-op
// threads at once. It takes the same time whenever the cores run at full speed, so a slower
// canary means a slow spell (a busy neighbour, a throttled or shared core); see schedule.hpp.

namespace opbench::exec {

// One reading: seconds of the slowest thread's loop.
double canary_reading(int threads);

// The canary: the fastest of three readings back to back (~0.3 ms). A timer tick or a short
// interrupt lands in one reading; a slow spell (a busy neighbour, a throttled core) lasts longer
// and slows all three (bench_overhead canary measures how often each would call a repetition slow).
double canary_seconds(int threads);

}  // namespace opbench::exec
