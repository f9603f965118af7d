#!/usr/bin/env python3
"""How much a case's time depends on where its buffers land (placement), in one process.

    .venv/bin/python bench/placement.py [PLACEMENTS=12] [CALLS=10] [ROUNDS=10]

For each case, PLACEMENTS inputs: views at other offsets (64-byte steps) into one larger buffer,
as opbench's per-repetition padding moves a repetition's buffers. Each placement is timed ROUNDS
times, the placements in turn within a round (round-robin), each time as its fastest of CALLS
calls, one intra-op thread. A placement timed once tells nothing: the machine's moment moves a
time as much (on 2026-11-26 `tril` 8x12x128x128 read x1.46 over 24 placements timed one after
the other, and x1.02 over the medians of 12 placements timed 10 times each, round-robin). So this
prints, per case, the spread of the placements' medians over rounds (what placement decides), the
spread of the rounds' medians over placements (what the moment decides), and the share of the
variance of all times that the placement explains (one-way ANOVA: between placements over total).
A case whose placements' medians differ by far more than the machine's noise cannot repeat from
run to run unless a run samples many placements (docs/reproducibility.md).
"""
import statistics
import sys

import torch

from pytiming import fastest

torch.set_num_threads(1)
placements = int(sys.argv[1]) if len(sys.argv) > 1 else 12
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 10
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 10

weight = torch.randn(96, 1, 3, 3)
cases = {
    # The default suite's depthwise _convolution (MobileNet-style, 1x96x112x112, 3x3, groups 96).
    "depthwise conv 1x96x112x112 3x3": ((96, 112, 112),
                                        lambda x: torch.convolution(x.view(1, 96, 112, 112), weight, None, [1, 1],
                                                                    [1, 1], [1, 1], False, [0, 0], 96)),
    # A control of the same size: a streaming elementwise operator.
    "relu 1x96x112x112": ((96, 112, 112), lambda x: torch.relu(x)),
    # The default suite's tril (8x12x128x128, 6 MiB), the A/A's farthest case in some hours.
    "tril 8x12x128x128": ((96, 128, 128), lambda x: torch.tril(x.view(8, 12, 128, 128))),
}


def spread(values):
    return max(values) / min(values)


for name, (shape, op) in cases.items():
    numel = shape[0] * shape[1] * shape[2]
    pool = torch.randn(numel + 16 * placements)
    inputs = [pool[16 * p: 16 * p + numel] for p in range(placements)]
    times = [[0.0] * rounds for _ in range(placements)]
    for r in range(rounds):
        for p, x in enumerate(inputs):
            times[p][r] = fastest(lambda: op(x), calls)[0]
    every = [t for row in times for t in row]
    mean = statistics.mean(every)
    between = sum(rounds * (statistics.mean(row) - mean) ** 2 for row in times)
    total = sum((t - mean) ** 2 for t in every)
    by_placement = [statistics.median(row) for row in times]
    by_round = [statistics.median(times[p][r] for p in range(placements)) for r in range(rounds)]
    print(f"{name}: placements' medians {min(by_placement) * 1e6:.0f}-{max(by_placement) * 1e6:.0f} us "
          f"(x{spread(by_placement):.2f} over {placements}), rounds' medians {min(by_round) * 1e6:.0f}-"
          f"{max(by_round) * 1e6:.0f} us (x{spread(by_round):.2f} over {rounds}), every time "
          f"{min(every) * 1e6:.0f}-{max(every) * 1e6:.0f} us; the placement explains "
          f"{between / total if total > 0 else 0:.0%} of the variance")
    for p, x in enumerate(inputs):
        print(f"    input % 4096 = {x.data_ptr() % 4096:4d}  median {by_placement[p] * 1e6:8.0f} us  rounds "
              + " ".join(f"{t * 1e6:.0f}" for t in times[p]))
