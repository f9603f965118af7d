#pragma once
// Small string helpers shared by the parsers and the command line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opbench::core {

// Splits on `sep`; empty pieces are kept unless `skip_empty`.
std::vector<std::string> split(std::string_view text, char sep, bool skip_empty = false);

// `text` as XML (and HTML) text or attribute value: & < > " ' escaped, and the control
// characters XML 1.0 cannot hold (all but tab, newline and carriage return) dropped.
std::string xml_escape(std::string_view text);

// A tag as opbench keeps and compares it: lower case, words joined by '-' ("ViewAttribute" ->
// "view-attribute", "Broadcast" and "broadcast" -> "broadcast", "data dependent" ->
// "data-dependent"), so spellings of one tag from the configs, the samples' LongTail-Bench
// metadata and the command line are one tag.
std::string canonical_tag(std::string_view text);

// `text` with every control character (below 0x20, and 0x7f) written as `\xNN`: one line, and
// nothing a terminal would act on (case ids: a string argument may hold a line break or an escape
// sequence).
std::string printable(std::string_view text);

// `text` as one cell of a Markdown table, shown as it is: `|` escaped (it would end the cell),
// & < > as HTML entities (Markdown renders raw HTML), `\` escaped, and line breaks and other
// control characters as one space each. For ids inside a code span use markdown_code_cell.
std::string markdown_cell(std::string_view text);
// `text` inside a Markdown table's code span (`...`): `|` escaped (GFM reads it as a cell's end
// even there), backticks and control characters as one space each; nothing else changes inside
// a code span.
std::string markdown_code_cell(std::string_view text);

// Strips ASCII white space at both ends.
std::string trim(std::string_view text);

// The text up to its first line break (LibTorch's messages go on with C++ stack frames).
std::string first_line(std::string_view text);

// Joins with `sep` between pieces.
std::string join(const std::vector<std::string>& pieces, std::string_view sep);

// Splits every item on ',' and trims it: `{"a,b", "c"}` -> `{"a", "b", "c"}`.
std::vector<std::string> split_list(const std::vector<std::string>& items);

// 64-bit FNV-1a of `text`: the same on every machine and build (shards, trace and cache names).
std::uint64_t stable_hash(std::string_view text);

// A file name (no extension) for `text`, a case id: its letters, digits and . - = , kept, every
// other character `_`, cut at 150, then `-` and the low 32 bits of stable_hash in hex, so two ids
// never share one ("add/self=4/..." -> "add_self=4_...-1a2b3c4d"). Trace and compiler-text files.
std::string file_name_of(std::string_view text);

// The `count` words of `known` closest to `word` (Levenshtein distance, case ignored; ties in
// `known`'s order): what "did you mean" offers for a name that matches nothing.
std::vector<std::string> nearest(std::string_view word, const std::vector<std::string>& known,
                                 std::size_t count = 3);

bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);

// The current time in UTC: ISO 8601 to the second ("2026-11-27T02:30:00Z", as result contexts
// and the history date things), or a stamp for file names ("20261127-023000").
enum class UtcFormat { iso, file_stamp };
std::string utc_now(UtcFormat format = UtcFormat::iso);

} // namespace opbench::core
