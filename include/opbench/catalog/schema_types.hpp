#pragma once
// Helpers over LibTorch schema types, shared by the binder and the executor's input maker.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/function_schema.h>

#include <string>

namespace opbench::catalog {

// The element type when `type` is Optional[T], else nullptr.
c10::TypePtr optional_element(const c10::TypePtr& type);

// The element type when `type` is List[T], else nullptr.
c10::TypePtr list_element(const c10::TypePtr& type);

// True for Tensor.
bool is_tensor(const c10::TypePtr& type);

// Finds one overload; throws ConfigError when the dispatcher has no such operator.
c10::OperatorHandle find_operator(const std::string& name, const std::string& overload,
                                  const std::string& where);

} // namespace opbench::catalog
