// What the compiling stages keep in the cache between processes and runs (cache_dir.hpp): the
// names of their artifacts, traces saved as TorchScript modules, and the one trace of a sample
// that the script-dynamic stage runs at every size (docs/stages.md). Internal to stages/.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/case.hpp"

namespace opbench::stages {

// A file name of `text`: its stable hash in 16 hex digits.
std::string hex_hash(const std::string& text);

// An input as an artifact's name sees it: dtype, device, and its sizes and strides (`sizes`) or
// its rank.
std::string input_signature(const at::Tensor& t, bool sizes);

// What names an artifact of `c` (hashed with hex_hash for its file): the case and its trace at
// these inputs; for a dynamic one (`dynamic`), the sample and its parameters other than its sizes
// at these inputs' dtypes, devices and ranks, so that every size of the sample has the same name.
// Both with LibTorch's version.
std::string artifact_key(const results::Case& c, torch::jit::Graph& graph,
                         const std::vector<at::Tensor>& inputs, bool dynamic);

// Puts `own`, a finished file this process made, at `path`, unless another process has put its
// own there first (several may make the same artifact at once; the first stays, so the file and
// what its sidecar says of it come from one process). Then writes `about`, with the file's digest
// and size added (`digest`, `bytes`), to `path` + ".json" (when this one's is the file; a reader
// that finds the file before its sidecar knows nothing of it). `own` is gone afterwards. True when
// this process's file is the one at `path`.
bool publish(const std::string& own, const std::string& path, Json about);

// What the sidecar publish() wrote beside the file at `path` says of it; an empty object where
// there is none (not written yet, or the file was made before sidecars) or it cannot be read
// (written by half): nothing is known of the file.
Json read_sidecar(const std::string& path);

// Whether the file at `path` is the one its sidecar describes: its size and digest (FNV-1a 64 of
// its bytes) as published. A cached artifact that is not (cut short, corrupted, swapped for
// another, or made before digests, 2026-11-28) is never loaded: loading a corrupted compiled
// package can end the process. Checked once per process and file.
bool verified(const std::string& path);

// Removes the artifact at `path`, its sidecar and what was learnt of it (its probes), so it is
// made again.
void discard(const std::string& path);

// Removes what processes that died left in the cache folder `dir`: a process's own files are
// named `<hash>.<pid>.<...>` (a package it compiled) or `<hash>.pt2.probe-<hash>.<pid>.<...>` (a
// probe of a dynamic package at other sizes: its inputs, its errors, the folder the package was
// unpacked into), and those of a pid that no process has any more go, folders whole.
void remove_orphans(const std::string& dir);

// A number a sidecar keeps ("compile_time", "traced_in"), when it is one a process could have
// written: finite and from 0 to a day [s]; none otherwise (a file from elsewhere is not trusted).
std::optional<double> sidecar_seconds(const Json& about, const char* key);

// Saves `graph` as a TorchScript module (forward = the graph, an unused `self` first), which
// torch.jit.load reads.
void save_trace(torch::jit::Graph& graph, const std::string& path);

// The script-dynamic stage's function for `c`: the trace of the sample's first size asked for,
// kept in cache_dir()/script/ (with <file>.json: the case it was traced from and the seconds the
// trace took), so every process and run times the same trace; within a process one TorchScript
// function made from it serves every size, sharing the graph executor's profiles and
// specializations among them. `graph` and `traced_in` (seconds): the trace at this case's size,
// kept when no trace is.
struct SharedScript {
  std::shared_ptr<torch::jit::GraphFunction> function;
  std::string traced_from; // the case id of the size it was traced at
  double traced_in = 0;    // seconds that trace took
};
SharedScript shared_script(const results::Case& c, torch::jit::Graph& graph,
                           const std::vector<at::Tensor>& inputs, double traced_in);

} // namespace opbench::stages
