#!/usr/bin/env python3
"""Why an in-place case must start each call from its made inputs: the same operator on finite
values and on the infinities and NaN that repeated in-place calls leave behind.

    .venv/bin/python bench/special_values.py [CALLS=20]

One intra-op thread; each line is the fastest of CALLS calls of exp on an 8x128x3072 float32
tensor of normal values, of +inf, and of NaN, then what happens to exp_ applied again and again
to its own output (the share of infinite elements after each call, and its time).
"""
import sys
import time

import torch

from pytiming import fastest

torch.set_num_threads(1)
calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20


x = torch.randn(8, 128, 3072)
for name, values in [("normal", x), ("+inf", torch.full_like(x, float("inf"))), ("NaN", torch.full_like(x, float("nan")))]:
    print(f"exp on {name:6}: {fastest(lambda: torch.exp(values), calls)[0] * 1e3:.2f} ms")
y = x.clone()
for i in range(8):
    start = time.perf_counter()
    y.exp_()
    took = time.perf_counter() - start
    print(f"exp_ call {i + 1}: {took * 1e3:.2f} ms, infinite {torch.isinf(y).float().mean().item():.3f}")
