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

#include <algorithm>
#include <set>
#include <string>

#include "opbench/machine/devices.hpp"
#include "opbench/measure/call_recorder.hpp"
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
      for (std::size_t i = inputs.size() - std::min(inputs.size(), sample.info.host_inputs);
           i < inputs.size(); ++i) {
        host.insert(inputs[i].storage().data());
      }
      at::NoGradGuard no_grad;
      const measure::Recording recording = measure::record_aten_calls([&] { sample.body(inputs); });
      const std::string where = sample.info.name + " " + c.at("sizes").dump() + ": ";
      for (const auto& call : recording.calls) {
        if (call.default_device)
          problems += where + call.op + " makes a tensor on the default device\n";
      }
      std::set<std::string> syncs;
      for (const auto& sync : recording.syncs) {
        if (host.count(sync.storage) == 0)
          syncs.insert(sync.op);
      }
      if (!syncs.empty() && sample.info.host_sync.empty()) {
        std::string ops;
        for (const auto& op : syncs)
          ops += (ops.empty() ? "" : ", ") + op;
        problems +=
            where + "synchronises with the device (" + ops + ") and host_sync does not say why\n";
      }
      if (syncs.empty() && !sample.info.host_sync.empty()) {
        problems += where + "declares host_sync but makes no synchronisation\n";
      }
    }
  }
  EXPECT_TRUE(problems.empty()) << problems;
}

// Every sample at every dtype it declares, on every device this machine has (the CPU in CI):
// its first case forward, with its outputs on the device, and where it has one its backward,
// reaching each named input with a gradient of the case's dtype. (Outputs keep the dtype the
// original gives them: mmdetection's accuracy is float32 whatever its scores.) A sample that
// declares a dtype besides float32 has a floating input for it to reach.
TEST(SampleDevices, EveryDeclaredDtypeOnEveryDeviceForwardAndBackward) {
  std::vector<at::Device> devices{at::Device(at::kCPU)};
  if (at::hasCUDA())
    devices.emplace_back(at::kCUDA, 0);
  std::string problems;
  int runs = 0;
  for (const Sample& sample : registry()) {
    for (const auto& device : devices) {
      for (const std::string& name : sample.info.dtypes) {
        const at::ScalarType dtype = machine::scalar_type(name);
        const std::string where = sample.info.name + " " + name + " on " + device.str() + ": ";
        try {
          at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(7);
          Tensors inputs = sample.make_inputs(sample.info.cases.at(0).at("sizes"), generator);
          const std::size_t on_device = place_inputs(sample, inputs, dtype, device);
          const bool floating =
              std::any_of(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(on_device),
                          [](const at::Tensor& t) { return at::isFloatingType(t.scalar_type()); });
          if (!floating && name != "float32")
            problems += where + "no floating input for the dtype to reach\n";
          at::AutoGradMode grad(sample.info.backward);
          for (std::size_t i : sample.info.grad_inputs)
            inputs[i].requires_grad_(true);
          const Tensors outputs = sample.body(inputs);
          ++runs;
          at::Tensor total;
          for (const auto& out : outputs) {
            if (!out.defined() || !at::isFloatingType(out.scalar_type()))
              continue;
            if (out.device() != device)
              problems += where + "an output is on " + out.device().str() + "\n";
            if (out.requires_grad())
              total = total.defined() ? total + out.sum().to(at::kFloat) : out.sum().to(at::kFloat);
          }
          if (!sample.info.backward)
            continue;
          if (!total.defined()) {
            problems += where + "no output depends on the named inputs\n";
            continue;
          }
          total.backward();
          for (std::size_t i : sample.info.grad_inputs) {
            const at::Tensor g = inputs[i].grad();
            if (!g.defined() || g.scalar_type() != dtype)
              problems += where + "input " + std::to_string(i) + " gets no gradient of its dtype\n";
          }
        } catch (const std::exception& e) {
          const std::string what = e.what();
          problems += where + what.substr(0, what.find('\n')) + "\n";
        }
      }
    }
  }
  EXPECT_TRUE(problems.empty()) << problems;
  EXPECT_GE(runs, 105 * 2);
}

// The checks above see what they are meant to see.
TEST(SampleDevices, RecorderSeesDefaultDeviceFactoriesAndSyncs) {
  const at::Tensor x = at::rand({8});
  const measure::Recording r = measure::record_aten_calls([&] {
    const at::Tensor a = at::arange(8, at::kFloat);         // no device: flagged
    const at::Tensor b = at::arange(8, x.options());        // the input's device: fine
    const at::Tensor c = at::zeros_like(x);                 // from x: fine
    (void)x.index({x > 0.5});                               // a boolean mask: a sync
    (void)(a + b + c).sum().item<float>();                  // .item(): a sync
    (void)x.to(at::kCPU, at::kFloat, false, /*copy=*/true); // a copy to the host: a sync
  });
  int flagged = 0;
  for (const auto& call : r.calls)
    flagged += call.default_device ? 1 : 0;
  EXPECT_EQ(flagged, 1);
  std::set<std::string> syncs;
  for (const auto& s : r.syncs)
    syncs.insert(s.op);
  EXPECT_TRUE(syncs.count("aten::nonzero")) << "boolean-mask index";
  EXPECT_TRUE(syncs.count("aten::_local_scalar_dense")) << ".item()";
  EXPECT_TRUE(syncs.count("aten::_to_copy")) << "a copy to the host";
  const measure::Recording random =
      measure::record_aten_calls([&] { (void)at::dropout(x, 0.5, true); });
  EXPECT_FALSE(random.random.empty());
  EXPECT_TRUE(r.random.empty());
}

} // namespace
} // namespace opbench::samples
