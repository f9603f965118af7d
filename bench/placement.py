#!/usr/bin/env python3
"""How much a case's time depends on where its buffers land (placement), in one process.

    .venv/bin/python bench/placement.py [PLACEMENTS=24] [CALLS=15]

For each case, PLACEMENTS times over: the input is a view at another offset (64-byte steps)
into a larger buffer, and a few untimed allocations of other sizes come first, so the output
lands elsewhere too (as opbench's per-repetition padding moves a repetition's buffers); each
placement's time is its fastest of CALLS calls, one intra-op thread. Prints, per case, the
fastest and slowest placement and their ratio, and each placement's time with where the
input and the output landed (address mod 4096). A case whose placements differ by far more
than the machine's noise cannot repeat from run to run unless a run samples many placements:
opbench's repetitions each take one (docs/reproducibility.md).
"""
import sys

import torch

from pytiming import fastest

torch.set_num_threads(1)
placements = int(sys.argv[1]) if len(sys.argv) > 1 else 24
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 15


weight = torch.randn(96, 1, 3, 3)
cases = {
    # The default suite's depthwise _convolution (MobileNet-style, 1x96x112x112, 3x3, groups 96).
    "depthwise conv 1x96x112x112 3x3": ((96, 112, 112),
                                        lambda x: torch.convolution(x.view(1, 96, 112, 112), weight, None, [1, 1],
                                                                    [1, 1], [1, 1], False, [0, 0], 96)),
    # A control of the same size: a streaming elementwise operator.
    "relu 1x96x112x112": ((96, 112, 112), lambda x: torch.relu(x)),
    # The default suite's tril (8x12x128x128, 6 MiB), often the A/A's farthest case.
    "tril 8x12x128x128": ((96, 128, 128), lambda x: torch.tril(x.view(8, 12, 128, 128))),
}
for name, (shape, op) in cases.items():
    numel = shape[0] * shape[1] * shape[2]
    pool = torch.randn(numel + 16 * placements)
    keep = []
    rows = []
    for p in range(placements):
        keep.append(torch.empty(1024 * (p % 7 + 1)))  # move the output's allocation too
        x = pool[16 * p: 16 * p + numel]
        t, out = fastest(lambda: op(x), calls)
        rows.append((t, x.data_ptr() % 4096, out.data_ptr() % 4096))
    times = sorted(r[0] for r in rows)
    print(f"{name}: fastest {times[0] * 1e6:.0f} us, median {times[len(times) // 2] * 1e6:.0f} us, "
          f"slowest {times[-1] * 1e6:.0f} us: x{times[-1] / times[0]:.2f} over {placements} placements")
    for t, a, b in rows:
        print(f"    {t * 1e6:8.0f} us  input % 4096 = {a:4d}  output % 4096 = {b:4d}")
