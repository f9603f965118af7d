#pragma once
// Generated input values kept between a case's repetitions. A repetition makes its inputs afresh
// (new memory, at another placement), but from the same seed, so their values are the same each
// time. LibTorch's CPU generator draws on one thread: the default suite spent 33 s of its 283 s
// drawing the same values 7 times (kl_div's two 125 MB tensors, 0.28 s a repetition). Copying a
// kept draw into fresh memory costs a third to a quarter of that. The memo keeps the draws of at
// least 1 MB, with the generator's state after each, under a byte budget (the least recently used
// go first); a caller takes a copy, never the kept tensor, so an in-place operator cannot change
// what the next repetition gets.

#include <ATen/ATen.h>

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace opbench::exec {

class InputMemo {
public:
  struct Draw {
    at::Tensor values;          // as drawn, on the CPU
    at::Tensor generator_state; // the generator's state after drawing them
  };

  explicit InputMemo(std::size_t budget_bytes) : budget_(budget_bytes) {}

  // The process's memo, default_budget() bytes.
  static InputMemo& shared();
  // 2 GiB, or an eighth of the machine's memory where that is less: the default suite's large
  // draws (kl_div's 250 MB, embedding_bag's 256 MB, a dozen 94 MB vocabulary tables) fit, so
  // interleaved repetitions, which revisit every case, find theirs.
  static std::size_t default_budget();

  // Draws at least this many bytes are kept; smaller ones cost less to draw again than to keep.
  static constexpr std::size_t k_min_bytes = 1 << 20;

  // The draw kept under `key`, made the most recently used; nullopt when none.
  std::optional<Draw> find(const std::string& key);
  // Keeps `draw` under `key` (its values shared, not copied: pass a tensor nobody else writes),
  // dropping the least recently used draws past the budget. A draw over the budget is not kept.
  void keep(const std::string& key, Draw draw);

  std::size_t bytes() const;
  std::size_t size() const;
  void clear();

private:
  using Entry = std::pair<std::string, Draw>;
  static std::size_t bytes_of(const Draw& draw);
  mutable std::mutex mutex_;
  std::size_t budget_;
  std::size_t bytes_ = 0;
  std::list<Entry> order_; // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

} // namespace opbench::exec
