// Every sample's body under the call recorder, on the CPU, as the executor runs it: what would
// go wrong on a GPU shows here already.
//  - No tensor made on the default device: a factory call (arange, full, zeros, ...) given no
//    device makes a CPU tensor beside CUDA inputs on a GPU ("expected all tensors to be on the
//    same device"). A body takes its device from its inputs.
//  - No host synchronisation (.item(), nonzero, a boolean mask, ...) in the timed body, except on
//    its host inputs (SampleInfo::host_inputs) or where the original synchronises too and the
//    metadata says so (SampleInfo::host_sync); and a declared one must really happen.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/grad_mode.h>

#include <set>
#include <string>

#include "opbench/exec/call_recorder.hpp"
#include "registry.hpp"

namespace opbench::samples {
namespace {

TEST(SampleDevices, NoDefaultDeviceTensorsAndNoUndeclaredHostSync) {
  std::string problems;
  for (const Sample& sample : registry()) {
    for (const Json& c : sample.info.cases) {
      at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(7);
      const Tensors inputs = sample.make_inputs(c.at("sizes"), generator);
      std::set<const void*> host;
      for (std::size_t i = inputs.size() - std::min(inputs.size(), sample.info.host_inputs); i < inputs.size(); ++i) {
        host.insert(inputs[i].storage().data());
      }
      at::NoGradGuard no_grad;
      const exec::Recording recording = exec::record_aten_calls([&] { sample.body(inputs); });
      const std::string where = sample.info.name + " " + c.at("sizes").dump() + ": ";
      for (const auto& call : recording.calls) {
        if (call.default_device) problems += where + call.op + " makes a tensor on the default device\n";
      }
      std::set<std::string> syncs;
      for (const auto& sync : recording.syncs) {
        if (host.count(sync.storage) == 0) syncs.insert(sync.op);
      }
      if (!syncs.empty() && sample.info.host_sync.empty()) {
        std::string ops;
        for (const auto& op : syncs) ops += (ops.empty() ? "" : ", ") + op;
        problems += where + "synchronises with the device (" + ops + ") and host_sync does not say why\n";
      }
      if (syncs.empty() && !sample.info.host_sync.empty()) {
        problems += where + "declares host_sync but makes no synchronisation\n";
      }
    }
  }
  EXPECT_TRUE(problems.empty()) << problems;
}

// The checks above see what they are meant to see.
TEST(SampleDevices, RecorderSeesDefaultDeviceFactoriesAndSyncs) {
  const at::Tensor x = at::rand({8});
  const exec::Recording r = exec::record_aten_calls([&] {
    const at::Tensor a = at::arange(8, at::kFloat);           // no device: flagged
    const at::Tensor b = at::arange(8, x.options());          // the input's device: fine
    const at::Tensor c = at::zeros_like(x);                   // from x: fine
    (void)x.index({x > 0.5});                                 // a boolean mask: a sync
    (void)(a + b + c).sum().item<float>();                    // .item(): a sync
    (void)x.to(at::kCPU, at::kFloat, false, /*copy=*/true);   // a copy to the host: a sync
  });
  int flagged = 0;
  for (const auto& call : r.calls) flagged += call.default_device ? 1 : 0;
  EXPECT_EQ(flagged, 1);
  std::set<std::string> syncs;
  for (const auto& s : r.syncs) syncs.insert(s.op);
  EXPECT_TRUE(syncs.count("aten::nonzero")) << "boolean-mask index";
  EXPECT_TRUE(syncs.count("aten::_local_scalar_dense")) << ".item()";
  EXPECT_TRUE(syncs.count("aten::_to_copy")) << "a copy to the host";
  const exec::Recording random = exec::record_aten_calls([&] { (void)at::dropout(x, 0.5, true); });
  EXPECT_FALSE(random.random.empty());
  EXPECT_TRUE(r.random.empty());
}

}  // namespace
}  // namespace opbench::samples
