// libFuzzer harness: the JSON config loader (config::load_json through load_file).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "opbench/config/loader.hpp"
#include "opbench/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  opbench::fuzz::InputFile file(data, size, ".json");
  try {
    (void)opbench::config::load_file(file.path());
  } catch (const opbench::Error&) {
  }
  return 0;
}
