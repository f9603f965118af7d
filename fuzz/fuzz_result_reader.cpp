// libFuzzer harness: the result-file reader (results::load_results), JSON files and journals
// (the first byte picks which, so one corpus covers both).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "opbench/core/error.hpp"
#include "opbench/results/store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool journal = size > 0 && data[0] == 'J';
  opbench::fuzz::InputFile file(journal ? data + 1 : data, journal ? size - 1 : size,
                                journal ? ".json.journal.jsonl" : ".json");
  try {
    (void)opbench::results::load_results(file.path());
  } catch (const opbench::Error&) {
  }
  return 0;
}
