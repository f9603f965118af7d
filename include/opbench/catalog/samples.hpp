#pragma once
// Long-tail samples: composite operators written as many small tensor ops (box coders, IoU
// losses, masks), from the LongTail-Bench catalogue. Their bodies live in samples/ (C++ on
// LibTorch); this header gives their metadata without LibTorch.

#include <cstddef>
#include <string>
#include <vector>

#include "opbench/catalog/sample_parameter.hpp"
#include "opbench/core/json.hpp"

namespace opbench::catalog {

struct SampleInfo {
  std::string name;              // "bbox2delta"
  std::vector<std::string> tags; // LongTail-Bench vocabulary (ViewAttribute, Reduce, ...)
  std::string source;            // source project ("MMDET", "SINGLE_REPO", ...)
  std::string url;               // the function it reproduces; "" when the catalogue has none
  std::vector<Json> cases;       // the catalogue's argument cases, {"sizes": [...]}
  bool backward = false;         // whether backward is timed too
  std::string file;              // samples/<file>.cpp that holds the body
  // The last `host_inputs` inputs are parameters the body reads on the host with .item()
  // (counts, scales): they stay on the CPU whatever the case's device, as the Python numbers of
  // the original would, so reading them makes no device synchronisation.
  std::size_t host_inputs = 0;
  // Why the body makes the host wait for the device, where the original does too (a Python `if`
  // on a tensor, a data-dependent size); "" when it never does. Checked by the sample tests.
  std::string host_sync{};
  // What the body is written from when the catalogue gives no source (`url` ""): a public
  // function that computes the same, or the published method it documents. Required then.
  std::string written_from{};
  // The names of a case's sizes, in order (every case has one size per name): "boxes",
  // "classes", ...; a name ending in "_x16" counts sixteens, "unused" marks a catalogue size the
  // inputs do not follow (the catalogue's argument cases are kept as published).
  std::vector<std::string> axes{};
  // The original's keyword arguments a case may set (a loss's beta, an IoU's mode), typed, with
  // their defaults: the catalogue's cases take the defaults; --axis sweeps them as it does sizes.
  std::vector<SampleParameter> parameters{};
  // The inputs backward differentiates, by position, as training's requires_grad (a
  // distillation loss's student scores, not its teacher's; a layer's input and weights, not its
  // running statistics). Every sample with `backward` names them; empty without it.
  std::vector<std::size_t> grad_inputs{};
  // The dtypes a case may take: its floating inputs are made in float32 and cast to the case's
  // dtype (integer inputs, labels and indices, keep theirs). Boxes, scores and losses are real
  // numbers, so every floating dtype and nothing else; a case at another dtype is skipped.
  std::vector<std::string> dtypes{"float32", "float64", "float16", "bfloat16"};
};

} // namespace opbench::catalog
