#include "opbench/core/strings.hpp"

#include <cctype>

namespace opbench::core {

std::vector<std::string> split(std::string_view text, char sep, bool skip_empty) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(sep, start);
    const std::string_view piece =
        text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start);
    if (!skip_empty || !piece.empty())
      pieces.emplace_back(piece);
    if (pos == std::string_view::npos)
      break;
    start = pos + 1;
  }
  return pieces;
}

std::string trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  return std::string(text.substr(begin, end - begin));
}

std::string join(const std::vector<std::string>& pieces, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0)
      out += sep;
    out += pieces[i];
  }
  return out;
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    for (const auto& piece : split(item, ',', true)) {
      std::string value = trim(piece);
      if (!value.empty())
        out.push_back(std::move(value));
    }
  }
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

} // namespace opbench::core
