#!/usr/bin/env python3
"""`opbench extract --exported` (src/extract/exported.cpp): the operator calls of a torch.export
program, read by the Python `torch` of the same version as opbench's LibTorch.

  export_calls.py PROGRAM.pt2 [--record INPUTS.pt]
                                     prints one JSON object on stdout:
    {"torch": VERSION,
     "dims": {NAME: {"symbol": "s77", "input": "x", "dim": 0, "example": 8, "min": 2,
                     "max": 1024}},
     "inputs": [{"name": "x", "shape": [NAME, NAME, 64], "dtype": "float32"}],
     "calls": [{"node": "matmul", "op": "aten::matmul", "args": {...},
                "dims": [NAME, ...], "unsupported": "why, or empty"}],
     "left_out": ["node getitem: ... (why)"]}

With --record, INPUTS.pt (torch.save of a list, each item the positional inputs of one call: a
tuple, or one tensor) is run through the program's module, one call an item, and "recorded" lists,
per item, the size of each dimension in its inputs ({"sizes": {NAME: SIZE}}), with "refused" (why)
when the module did not take it (a size past the program's range): the sizes a model meets, for
`opbench replay`.

Every call_function node whose target is an operator overload (aten's or a loaded library's)
becomes a call, its arguments by the schema's names in opbench's config form: a tensor as
{"shape": [...]} (with "dtype" unless float32, the run's dtype), a symbolic size as the name of its
dimension. A dimension is named after the first user input that has it, INPUT_K (upper case),
its example size taken from the program's saved example inputs, its range from the program's
range constraints. Nothing of the .pt2 format is read here by hand: torch.export.load reads it.
Exit 0: the JSON printed; 3: the file is no exported program this torch reads (the reason is the
last line on stderr).
"""
import json
import re
import sys
import warnings


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(3)


def record_sizes(program, path, dims, user_inputs):
    """Each item of the inputs at `path` called through the program's module: its dimensions'
    sizes, and why the module refused it if it did."""
    import torch

    try:
        given = torch.load(path)
    except Exception as e:  # noqa: BLE001 - any failure is the reason the file is refused
        text = str(e).strip().splitlines()
        fail(f"{path}: not inputs torch.load reads ({type(e).__name__}: {text[0] if text else ''})")
    if isinstance(given, torch.Tensor) or not isinstance(given, (list, tuple)):
        fail(f"{path}: expected a list of calls' inputs (each a tuple, or one tensor), got "
             f"{type(given).__name__}")
    module = program.module()
    recorded = []
    for item in given:
        args = tuple(item) if isinstance(item, (list, tuple)) else (item,)
        entry = {"sizes": {}}
        for name, dim in dims.items():
            position = user_inputs.index(dim["input"]) if dim["input"] in user_inputs else -1
            value = args[position] if 0 <= position < len(args) else None
            if isinstance(value, torch.Tensor) and value.dim() > dim["dim"]:
                entry["sizes"][name] = int(value.shape[dim["dim"]])
        try:
            with torch.no_grad():
                module(*args)
        except Exception as e:  # noqa: BLE001 - any failure is why the program refuses it
            text = str(e).strip().splitlines()
            entry["refused"] = f"{type(e).__name__}: {text[0] if text else ''}"
        recorded.append(entry)
    return recorded


def main(path, record=None):
    warnings.filterwarnings("ignore")
    import torch

    try:
        program = torch.export.load(path)
    except Exception as e:  # noqa: BLE001 - any failure is the reason the file is refused
        text = str(e).strip().splitlines()
        fail(f"{path}: not an exported program torch {torch.__version__} reads "
             f"({type(e).__name__}: {text[0] if text else ''})")

    import torch.utils._pytree as pytree

    # The dimensions: each symbol of a user input's shape, named after the first input having it.
    dims = {}
    symbol_name = {}
    user_inputs = list(program.graph_signature.user_inputs)
    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    examples = []
    example_inputs = getattr(program, "example_inputs", None)
    if example_inputs is not None:
        examples = [leaf for leaf in pytree.tree_leaves(example_inputs)]
    for position, name in enumerate(user_inputs):
        node = placeholders.get(name)
        value = node.meta.get("val") if node is not None else None
        if not isinstance(value, torch.Tensor):
            continue
        example = examples[position] if position < len(examples) else None
        for k, size in enumerate(value.shape):
            if not isinstance(size, torch.SymInt):
                continue
            expr = size.node.expr
            if not getattr(expr, "is_Symbol", False) or str(expr) in symbol_name:
                continue
            dim = re.sub(r"[^A-Z0-9_]", "_", f"{name.upper()}_{k}")
            if not dim[0].isalpha():
                dim = "D" + dim
            symbol_name[str(expr)] = dim
            bounds = program.range_constraints.get(expr)
            lower = int(bounds.lower) if bounds is not None and bounds.lower.is_finite else None
            upper = int(bounds.upper) if bounds is not None and bounds.upper.is_finite else None
            dims[dim] = {
  "symbol" : str(expr),
             "input" : name,
                       "dim" : k,
                               "example"
      : int(example.shape[k]) if isinstance (example, torch.Tensor) else None,
        "min" : lower,
                "max" : upper}

    # The program's tensor inputs, each size a dimension's name where the program has it symbolic:
    # what `opbench replay` makes at each size set to call the whole program.
    inputs = []
    for name in user_inputs:
        node = placeholders.get(name)
        value = node.meta.get("val") if node is not None else None
        if not isinstance(value, torch.Tensor):
            continue
        shape = []
        for size in value.shape:
            expr = size.node.expr if isinstance(size, torch.SymInt) else size
            if isinstance(expr, int) or getattr(expr, "is_Integer", False):
                shape.append(int(expr))
            else:
                shape.append(symbol_name.get(str(expr), str(expr)))
        inputs.append({"name": name, "shape": shape,
                       "dtype": str(value.dtype).replace("torch.", "")})

    class Unsupported(Exception):
        pass

    def size_of(size, used):
        if isinstance(size, int):
            return size
        expr = size.node.expr if isinstance(size, torch.SymInt) else size
        if getattr(expr, "is_Integer", False):
            return int(expr)
        if getattr(expr, "is_Symbol", False):
            name = symbol_name.get(str(expr))
            if name is None:
                raise Unsupported(f"symbolic size {expr} appears in no input, so it has no example")
            if dims[name]["example"] is None:
                raise Unsupported(f"symbolic size {expr} ({name}) has no example value")
            used.add(name)
            return name
        names = {str(s): symbol_name.get(str(s), str(s)) for s in expr.free_symbols}
        raise Unsupported(f"size {expr} is an expression of the program's dimensions "
                          f"({', '.join(f'{k} = {v}' for k, v in sorted(names.items()))}); "
                          "a config's dimensions are names")

    def config_value(value, used):
        if isinstance(value, torch.fx.Node):
            meta = value.meta.get("val")
            if isinstance(meta, torch.Tensor):
                shape = [size_of(s, used) for s in meta.shape]
                if meta.dtype == torch.float32:
                    return {
  "shape" : shape}
                return {
  "shape" : shape, "dtype" : str(meta.dtype).replace("torch.", "")}
            if isinstance(meta, (torch.SymInt, int)):
                return size_of(meta, used)
            if isinstance(meta, (list, tuple)):
                raise Unsupported(f"input {value.name} is a list the graph makes")
            raise Unsupported(f"input {value.name} has no tensor or size the program records")
        if isinstance(value, (list, tuple)):
            return [config_value(v, used) for v in value]
        if isinstance(value, torch.SymInt):
            return size_of(value, used)
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, torch.dtype):
            return str(value).replace("torch.", "")
        if isinstance(value, torch.device):
            return str(value)
        raise Unsupported(f"an argument of type {type(value).__name__} ({value}) has no config form")

    calls = []
    left_out = []
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            left_out.append(f"node {node.name}: {getattr(target, '__name__', target)} is not an "
                            "operator call (left out)")
            continue
        schema = target._schema
        if schema.name.startswith(("aten::sym_", "aten::_assert")):
            continue  # a size read or a runtime check of sizes, not a computation
        # The default overload by the operator's name alone (a config's binder takes it first).
        overload = target._overloadname
        op = schema.name if overload == "default" else f"{schema.name}.{overload}"
        used = set()
        args = {}
        unsupported = ""
        try:
            for argument, value in zip(schema.arguments, node.args):
                args[argument.name] = config_value(value, used)
            for key, value in node.kwargs.items():
                args[key] = config_value(value, used)
        except Unsupported as e:
            unsupported = str(e)
        calls.append({"node": node.name, "op": op, "args": args, "dims": sorted(used),
                      "unsupported": unsupported})
    recorded = record_sizes(program, record, dims, user_inputs) if record else []
    json.dump({"torch": torch.__version__, "dims": dims, "inputs": inputs, "calls": calls,
               "left_out": left_out, "recorded": recorded}, sys.stdout)
    print()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--record":
        main(sys.argv[1], sys.argv[3])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        fail("usage: export_calls.py PROGRAM.pt2 [--record INPUTS.pt]")
