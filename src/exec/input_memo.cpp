#include "input_memo.hpp"

#include <unistd.h>

#include <algorithm>

namespace opbench::exec {

std::size_t InputMemo::default_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t eighth =
      pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8
                            : 0;
  return std::min(std::size_t{2} << 30, eighth);
}

InputMemo& InputMemo::shared() {
  static InputMemo memo(default_budget());
  return memo;
}

std::size_t InputMemo::bytes_of(const Draw& draw) {
  return draw.values.nbytes() +
         (draw.generator_state.defined() ? draw.generator_state.nbytes() : 0);
}

std::optional<InputMemo::Draw> InputMemo::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto at = index_.find(key);
  if (at == index_.end())
    return std::nullopt;
  order_.splice(order_.begin(), order_, at->second);
  return at->second->second;
}

void InputMemo::keep(const std::string& key, Draw draw) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t size = bytes_of(draw);
  if (size > budget_)
    return;
  if (const auto at = index_.find(key); at != index_.end()) {
    bytes_ -= bytes_of(at->second->second);
    order_.erase(at->second);
    index_.erase(at);
  }
  while (!order_.empty() && bytes_ + size > budget_) {
    bytes_ -= bytes_of(order_.back().second);
    index_.erase(order_.back().first);
    order_.pop_back();
  }
  order_.emplace_front(key, std::move(draw));
  index_[key] = order_.begin();
  bytes_ += size;
}

std::size_t InputMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

std::size_t InputMemo::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_.size();
}

void InputMemo::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  order_.clear();
  index_.clear();
  bytes_ = 0;
}

} // namespace opbench::exec
