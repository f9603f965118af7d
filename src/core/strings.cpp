#include "opbench/core/strings.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>

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

std::string file_name_of(std::string_view text) {
  std::string name;
  for (char ch : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ||
                      ch == '=' || ch == ',';
    name += keep ? ch : '_';
  }
  if (name.size() > 150)
    name.resize(150);
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08llx",
                static_cast<unsigned long long>(stable_hash(text) & 0xffffffffu));
  return name + "-" + hash;
}

std::vector<std::string> nearest(std::string_view word, const std::vector<std::string>& known,
                                 std::size_t count) {
  auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string a = lower(word);
  std::vector<std::pair<std::size_t, std::size_t>> scored; // (distance, index in known)
  for (std::size_t k = 0; k < known.size(); ++k) {
    const std::string b = lower(known[k]);
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
      row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    scored.emplace_back(row[b.size()], k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < count; ++i)
    out.push_back(known[scored[i].second]);
  return out;
}

std::string canonical_tag(std::string_view text) {
  const std::string trimmed = trim(text);
  std::string out;
  for (std::size_t i = 0; i < trimmed.size(); ++i) {
    const auto c = static_cast<unsigned char>(trimmed[i]);
    if (c == ' ' || c == '_' || c == '-') {
      if (!out.empty() && out.back() != '-')
        out += '-';
      continue;
    }
    // A capital after a lower-case letter or a digit starts a word ("ViewAttribute"); so does
    // the last capital of a run before a lower-case letter ("BLASKernel" -> "blas-kernel").
    const bool upper = std::isupper(c) != 0;
    if (upper && i > 0 && !out.empty() && out.back() != '-') {
      const auto before = static_cast<unsigned char>(trimmed[i - 1]);
      const bool next_lower =
          i + 1 < trimmed.size() && std::islower(static_cast<unsigned char>(trimmed[i + 1])) != 0;
      if (std::islower(before) != 0 || std::isdigit(before) != 0 ||
          (std::isupper(before) != 0 && next_lower))
        out += '-';
    }
    out += static_cast<char>(std::tolower(c));
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out;
}

std::string printable(std::string_view text) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += k_hex[u >> 4];
      out += k_hex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += ' ';
      continue;
    }
    switch (c) {
    case '|':
      out += "\\|";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string markdown_code_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '`')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
      continue;
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string utc_now(UtcFormat format) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  const std::size_t n = format == UtcFormat::iso
                            ? std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc)
                            : std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &utc);
  return std::string(text, n);
}

} // namespace opbench::core
