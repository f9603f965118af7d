#pragma once
// Cases that do not come from the catalog: the cases of a stored result run again (`run --from`)
// and a whole TorchScript model as one case (`run --model`).

#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/case.hpp"

namespace opbench::plan {

// `recorded` (a stored result's cases, read from `path`) bound again to this LibTorch's schemas,
// so they run exactly as recorded (arguments, dtype, device, threads, seed); samples, models and
// skipped cases carry their inputs and are kept as they are. A custom operator's `library` must
// be loaded already (--load-library): a result file from elsewhere names code that would run in
// this process, so it is loaded only with `load_recorded` (run --load-recorded-libraries). Every
// case that no longer binds, binds to another overload or needs a library not loaded, is
// reported in one ConfigError (`path: case id: why`, a line each).
std::vector<results::Case> rebind(std::vector<results::Case> recorded, const std::string& path,
                                  bool load_recorded = false);

// `run --model FILE --input ...`: the whole model as a case of its own per device and thread
// count of `options` (float32, forward, seeded with options.seed), measured like the others so the
// sum of its operators can be held against it. `inputs` are the inputs' specs as JSON,
// `input_texts` as given (`1x3x224x224:float32`; the case id joins them).
std::vector<results::Case> model_cases(const std::string& model, const Json& inputs,
                                       const std::vector<std::string>& input_texts,
                                       const PlanOptions& options);

} // namespace opbench::plan
