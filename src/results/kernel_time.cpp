#include "opbench/results/kernel_time.hpp"

#include <fmt/format.h>

#include <set>

#include "opbench/core/error.hpp"
#include "result_fields.hpp"

namespace opbench::results {

KernelTime kernel_time_of(const std::vector<DeviceActivity>& activities, int calls,
                          std::int64_t timer_stream) {
  KernelTime k;
  k.calls = calls;
  if (calls <= 0)
    return k;
  double kernel_seconds = 0, copy_seconds = 0;
  std::size_t kernels = 0, copies = 0, off = 0;
  std::set<std::int64_t> other_streams;
  for (const DeviceActivity& a : activities) {
    if (a.kind == DeviceActivity::Kind::kernel) {
      ++kernels;
      kernel_seconds += a.seconds;
    } else {
      ++copies;
      copy_seconds += a.seconds;
    }
    if (timer_stream >= 0 && a.stream != timer_stream) {
      ++off;
      other_streams.insert(a.stream);
    }
  }
  const double n = calls;
  k.per_call = kernel_seconds / n;
  k.kernels_per_call = static_cast<double>(kernels) / n;
  k.copies_per_call = static_cast<double>(copies) / n;
  k.copy_time_per_call = copy_seconds / n;
  if (off > 0) {
    std::string streams;
    for (std::int64_t s : other_streams)
      streams += (streams.empty() ? "" : ", ") + std::to_string(s);
    k.off_stream = fmt::format("{:g} of {:g} activities a call ran on another stream than the "
                               "timer's (stream {}): the case's time may not hold them",
                               static_cast<double>(off) / n,
                               static_cast<double>(activities.size()) / n, streams);
  }
  return k;
}

Json to_json(const KernelTime& k) {
  return {{"calls", k.calls},
          {"time", number(k.per_call)},
          {"kernels_per_call", number(k.kernels_per_call)},
          {"copies_per_call", number(k.copies_per_call)},
          {"copy_time", number(k.copy_time_per_call)},
          {"off_stream", k.off_stream}};
}

KernelTime kernel_time_from_json(const Json& json, const std::string& where) {
  if (!json.is_object() || !json.contains("time"))
    throw ResultsError(
        where + ": kernel_time: expected {calls, time, kernels_per_call, ...}, got " + json.dump());
  KernelTime k;
  k.calls = static_cast<int>(core::integer_field(json, "calls", 0, where));
  k.per_call = read_number(json, "time");
  k.kernels_per_call = read_number(json, "kernels_per_call");
  k.copies_per_call = read_number(json, "copies_per_call");
  k.copy_time_per_call = read_number(json, "copy_time");
  if (json.contains("off_stream") && json["off_stream"].is_string())
    k.off_stream = json["off_stream"].get<std::string>();
  return k;
}

} // namespace opbench::results
