// libFuzzer harness: `opbench merge`'s path (results::merge_results over two result files read
// with results::load_results). The input is two files split at the first 0 byte; each is a JSON
// file, or a journal when it starts with 'J'. Merge must return or throw opbench::Error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "opbench/core/error.hpp"
#include "opbench/results/merge.hpp"
#include "opbench/results/store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* zero = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t split = zero == nullptr ? size : static_cast<std::size_t>(zero - data);
  const std::pair<const std::uint8_t*, std::size_t> parts[2] = {
      {data, split}, {data + split + (zero ? 1 : 0), size - split - (zero ? 1 : 0)}};
  const char* suffixes[2][2] = {{"-a.json", "-a.json.journal.jsonl"},
                                {"-b.json", "-b.json.journal.jsonl"}};
  try {
    std::vector<std::pair<std::string, opbench::results::ResultSet>> inputs;
    for (int i = 0; i < 2; ++i) {
      const bool journal = parts[i].second > 0 && parts[i].first[0] == 'J';
      opbench::fuzz::InputFile file(parts[i].first + (journal ? 1 : 0),
                                    parts[i].second - (journal ? 1 : 0), suffixes[i][journal]);
      inputs.emplace_back(file.path(), opbench::results::load_results(file.path()));
    }
    (void)opbench::results::merge_results(std::move(inputs));
  } catch (const opbench::Error&) {
  }
  return 0;
}
