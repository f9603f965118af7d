#!/usr/bin/env python3
"""opbench's `inductor` stage (src/stages/stages.cpp): a case's TorchScript trace made into an
AOTInductor package by the Python `torch` of the same version as opbench's LibTorch.

  aoti_compile.py version                              prints torch's version
  aoti_compile.py TRACE.pt INPUTS.pt OUT.pt2 [--dynamic]
                                                       the trace (torch.jit.save format) with its
                                                       example inputs (a tuple, torch::pickle_save)
                                                       converted to an ExportedProgram
                                                       (torch._export.converter) and compiled
                                                       ahead of time (torch._inductor); with
                                                       --dynamic, exported again with every input
                                                       dimension symbolic where the program allows
                                                       (torch.export.Dim.AUTO: a dimension the
                                                       program fixes stays fixed), so that one
                                                       package serves other sizes
  aoti_compile.py exported PROGRAM.pt2 OUT.pt2          a torch.export program (torch.export.save)
                                                       compiled as it is, its symbolic dimensions
                                                       and their ranges kept: `opbench replay`'s
                                                       inductor-dynamic stage of a whole program
  aoti_compile.py probe PACKAGE.pt2 INPUTS.pt          runs the package once on these inputs, in
                                                       this process of its own: a generated
                                                       kernel's failed check can abort the process
                                                       that runs it (std::terminate in an OpenMP
                                                       region), which must not be opbench's
Exit 0: OUT.pt2 written (probe: the package ran); 3: the trace cannot be converted; 4: the
compiler failed; 5 (probe): the package raised. The reason is the last line on stderr.
"""
import sys
import warnings


def reason(stage, e):
    text = str(e).strip().splitlines()
    return f"{stage}: {type(e).__name__}: {text[0] if text else ''}"


def probe(package, inputs_path):
    import torch

    inputs = list(torch.load(inputs_path))
    try:
        # LibTorch's own loader, called as opbench calls the package (a flat list of tensors),
        # without importing the compiler as torch._inductor.aoti_load_package does (half of a
        # probe's time, docs/build-log.md); that wrapper only where the loader is not exposed.
        loader = getattr(getattr(torch._C, "_aoti", None), "AOTIModelPackageLoader", None)
        if loader is not None:
            loader(package, "model", False, 1, -1).run(inputs)
        else:
            torch._inductor.aoti_load_package(package)(*inputs)
    except Exception as e:  # noqa: BLE001 - any failure is the reason the package is not timed
        print(reason("the package's call", e), file=sys.stderr)
        return 5
    return 0


def main(argv):
    warnings.simplefilter("ignore")
    import torch

    if argv == ["version"]:
        print(torch.__version__)
        return 0
    if len(argv) == 3 and argv[0] == "probe":
        return probe(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "exported":
        try:
            program = torch.export.load(argv[1])
        except Exception as e:  # noqa: BLE001 - any failure is the reason the file is refused
            print(reason("torch.export.load", e), file=sys.stderr)
            return 3
        try:
            torch._inductor.aoti_compile_and_package(program, package_path=argv[2])
        except Exception as e:  # noqa: BLE001
            print(reason("torch._inductor.aoti_compile_and_package", e), file=sys.stderr)
            return 4
        return 0
    dynamic = argv[3:] == ["--dynamic"]
    if len(argv) != 3 and not dynamic:
        print(__doc__, file=sys.stderr)
        return 2
    trace_path, inputs_path, out = argv[:3]
    trace = torch.jit.load(trace_path)
    inputs = tuple(torch.load(inputs_path))
    try:
        from torch._export.converter import TS2EPConverter

        program = TS2EPConverter(trace, inputs).convert()
    except Exception as e:  # noqa: BLE001 - any failure of the converter is the case's reason
        print(reason("torch._export.converter", e), file=sys.stderr)
        return 3
    if dynamic:
        try:
            auto = torch.export.Dim.AUTO
            shapes = tuple({d: auto for d in range(t.dim())} if isinstance(t, torch.Tensor) else None
                           for t in inputs)
            program = torch.export.export(program.module(), inputs, dynamic_shapes=shapes)
        except Exception as e:  # noqa: BLE001
            print(reason("torch.export.export (dynamic shapes)", e), file=sys.stderr)
            return 3
    try:
        torch._inductor.aoti_compile_and_package(program, package_path=out)
    except Exception as e:  # noqa: BLE001
        print(reason("torch._inductor.aoti_compile_and_package", e), file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
