#pragma once
// The metadata of every long-tail sample built into this binary, without LibTorch: what the
// catalog lists (catalog::add_samples takes it) and `list`/`show` print. The bodies are in
// registry.hpp.

#include <vector>

#include "opbench/catalog/samples.hpp"

namespace opbench::samples {

// Every sample built into this binary, by name.
const std::vector<catalog::SampleInfo>& sample_infos();

} // namespace opbench::samples
