#pragma once
// A canary of the machine's speed: a fixed chain of integer multiply-adds (no memory traffic,
// no LibTorch call), about 0.1 ms on a 2.5 GHz core, run once on each of `threads` intra-op
// threads at once. It takes the same time whenever the cores run at full speed, so a slower
// canary means a slow spell (a busy neighbour, a throttled or shared core); see schedule.hpp.

namespace opbench::exec {

// Seconds of the slowest thread's loop.
double canary_seconds(int threads);

}  // namespace opbench::exec
