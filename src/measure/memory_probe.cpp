#include "opbench/measure/memory_probe.hpp"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <memory>

namespace opbench::measure {
namespace {

class AllocationTracker final : public c10::MemoryReportingInfoBase {
public:
  void reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, size_t /*total_allocated*/,
                         size_t /*total_reserved*/, c10::Device /*device*/) override {
    m_current += alloc_size;
    if (alloc_size > 0) {
      m_stats.total_bytes += alloc_size;
      ++m_stats.allocations;
    }
    m_stats.peak_bytes = std::max(m_stats.peak_bytes, m_current);
  }
  bool memoryProfilingEnabled() const override { return true; }
  const results::MemoryStats& stats() const { return m_stats; }
  std::int64_t current() const { return m_current; }

private:
  std::int64_t m_current = 0;
  results::MemoryStats m_stats;
};

} // namespace

// The tracker that saw every allocation and free of `call` on this thread.
static std::shared_ptr<AllocationTracker> tracked(const std::function<void()>& call) {
  auto tracker = std::make_shared<AllocationTracker>();
  c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, tracker);
  call();
  return tracker;
}

results::MemoryStats probe_memory(const std::function<void()>& call) {
  return tracked(call)->stats();
}

std::int64_t held_bytes(const std::function<void()>& call) {
  return tracked(call)->current();
}

} // namespace opbench::measure
