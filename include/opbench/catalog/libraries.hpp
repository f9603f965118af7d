#pragma once
// Operator libraries loaded into this process: a PyTorch extension's shared object whose
// TORCH_LIBRARY blocks register operators with the dispatcher (`run --load-library`, a JSON
// config's `libraries`, a result's `case.library` when it is run again). Once loaded, their
// operators bind, list and run like ATen's. docs/custom-ops.md tells the whole story.
// This header does not include LibTorch.

#include <string>
#include <vector>

namespace opbench::catalog {

struct LoadedLibrary {
  std::string path;                   // absolute
  std::vector<std::string> operators; // what it registered: "myops::fast_gelu", sorted
  // Operators that were there before it whose kernels it replaced or added to, with the dispatch
  // keys: "aten::relu (CPU)". A case of such an operator runs this library's code, and records it
  // (Case::library).
  std::vector<std::string> overrides;
};

// Loads the library at `path` (relative to the working directory) once per process; loading it
// again returns the first load. A library that would end the process as it loads (a TORCH_LIBRARY
// namespace registered twice throws from its static initialiser, which nothing can catch; an
// initialiser that calls exit() or _exit()) is first loaded in a forked copy of this process,
// which must say it loaded, so that becomes an error too.
// Throws ConfigError `where: cannot load operator library PATH: why`: a path that is no regular
// file (missing, a directory, a loop of symbolic links), what the dynamic loader said (for a
// missing LibTorch symbol, that it was built against another LibTorch than this one), LibTorch's
// message for a registration it refused, or how the initialiser ended the copy.
const LoadedLibrary& load_library(const std::string& path, const std::string& where);

// Every library loaded so far, in the order loaded.
const std::vector<LoadedLibrary>& loaded_libraries();

// The loaded library whose code `op` ("myops::fast_gelu", "relu", with or without an overload)
// runs: the newest that registered it or replaced one of its kernels; "" for LibTorch's own.
std::string library_of(const std::string& op);

// What to add to "LibTorch has no operator NS::NAME": which loaded library defines namespace NS
// and its operators, or that none does and how to load one; "" for aten.
std::string missing_operator_hint(const std::string& op);

} // namespace opbench::catalog
