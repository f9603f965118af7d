#pragma once
// The parts of bench_overhead (bench/overhead.cpp) that live apart; what each prints is told at the
// top of overhead.cpp.

// bench_overhead canary [seconds]: single speed-canary readings back to back for `budget` s.
int canary(double budget);
// bench_overhead memory-canary [seconds]: the memory canary beside relu for `budget` s.
int memory_canary(double budget);
