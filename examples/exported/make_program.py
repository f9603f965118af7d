#!/usr/bin/env python3
"""A small model exported with torch.export, its batch and sequence length dynamic: what
`opbench extract --exported` reads (docs/extract.md).

  python make_program.py OUT.pt2 [--awkward]

The model: a matmul with a weight, relu, layer_norm and softmax over the last dimension, on an
input of [batch, seq, 64] (batch 2 to 1024, seq 2 to 512; the saved example is 8 x 16).
--awkward adds what a config cannot express, so the extraction says so node by node: a reshape
to [batch * seq, 64] (a size that is an expression of two dimensions) and torch.nonzero (an
output size no input has, so no example).
"""
import sys
import warnings

import torch


class Block(torch.nn.Module):
    def __init__(self, awkward):
        super().__init__()
        self.awkward = awkward
        self.weight = torch.nn.Parameter(torch.randn(64, 64) / 8)
        self.norm = torch.nn.LayerNorm(64)

    def forward(self, x):
        y = torch.softmax(self.norm(torch.relu(torch.matmul(x, self.weight))), dim=-1)
        if self.awkward:
            flat = y.reshape(-1, 64)
            return flat.sum(dim=0) + torch.nonzero(flat > 0.5).shape[0]
        return y


def main():
    warnings.filterwarnings("ignore")
    if len(sys.argv) < 2:
        sys.exit("usage: make_program.py OUT.pt2 [--awkward]")
    awkward = "--awkward" in sys.argv[2:]
    batch = torch.export.Dim("batch", min=2, max=1024)
    seq = torch.export.Dim("seq", min=2, max=512)
    program = torch.export.export(Block(awkward).eval(), (torch.randn(8, 16, 64),),
                                  dynamic_shapes={"x": {0: batch, 1: seq}})
    torch.export.save(program, sys.argv[1])


if __name__ == "__main__":
    main()
