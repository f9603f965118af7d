#pragma once
// What a case's profiler trace (CaseResult::trace, `run --trace`) marks for its readers: the
// writer is exec's trace (src/measure/trace.hpp), a reader report's trace_profile.hpp.

namespace opbench::results {

// The user annotation around each profiled call of the case: Kineto writes it as an event of
// category "user_annotation" whose span is one call.
constexpr const char* k_traced_call = "opbench::call";

} // namespace opbench::results
