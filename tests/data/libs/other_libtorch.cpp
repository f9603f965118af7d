// A library as one built against another LibTorch looks to this one: it needs a c10 symbol that
// this LibTorch does not have, so the dynamic loader refuses it (test_cli_custom_op.cpp).
namespace c10 {
void opbench_symbol_of_another_libtorch();
} // namespace c10

namespace {
struct Registration {
  Registration() { c10::opbench_symbol_of_another_libtorch(); }
} k_registration;
} // namespace
