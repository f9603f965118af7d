#!/usr/bin/env python3
"""How much transparent huge pages can matter for a streaming operator here: add of three float32
tensors all on huge pages against all on 4 KiB pages, in alternating rounds.

    .venv/bin/python bench/huge_pages_bound.py [ROUNDS=4]

Each tensor sits 2 MiB-aligned in an anonymous mapping advised MADV_HUGEPAGE or MADV_NOHUGEPAGE;
one intra-op thread; per size, the fastest of 200 calls in each round, the best round of each.
It bounds what the placement of a LibTorch block (aligned to 4 KiB only, so only its whole 2 MiB
stretches can be huge pages; docs/measuring.md, "Host allocator") can cost.
"""
import ctypes
import mmap
import sys

import torch

from pytiming import fastest

torch.set_num_threads(1)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
MIB = 1 << 20


def tensors(numel, huge, count=3):
    size = (numel * 4 + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
    region = mmap.mmap(-1, size * count + 2 * MIB)
    offset = (-ctypes.addressof(ctypes.c_char.from_buffer(region))) % (2 * MIB)
    region.madvise(mmap.MADV_HUGEPAGE if huge else mmap.MADV_NOHUGEPAGE, 0, len(region))
    made = [torch.frombuffer(region, dtype=torch.float32, count=numel, offset=offset + i * size) for i in range(count)]
    for t in made:
        t.normal_()
    return region, made


keep = []
for mib in [3, 6, 12, 24]:
    numel = mib * MIB // 4
    best = {True: float("inf"), False: float("inf")}
    for _ in range(rounds):
        for huge in (True, False):
            region, (x, y, z) = tensors(numel, huge)
            keep.append(region)
            best[huge] = min(best[huge], fastest(lambda: torch.add(x, y, out=z), 200)[0])
    print(f"add {mib:2d} MiB x3: huge pages {best[True] * 1e6:8.1f} us, 4 KiB pages {best[False] * 1e6:8.1f} us, "
          f"4 KiB / huge {best[False] / best[True]:.3f}")
