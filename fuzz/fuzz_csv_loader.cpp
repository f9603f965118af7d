// libFuzzer harness: the CSV config loader (config::load_csv through load_file).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "opbench/config/loader.hpp"
#include "opbench/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  opbench::fuzz::InputFile file(data, size, ".csv");
  try {
    (void)opbench::config::load_file(file.path());
  } catch (const opbench::Error&) {
    // A clean error: what bad input must get.
  }
  return 0;
}
