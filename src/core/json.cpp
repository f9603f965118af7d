#include "opbench/core/json.hpp"

#include <set>
#include <vector>

namespace opbench::core {
namespace {

// Thrown by the parser's callback at the first value past the limit; it stops the parse there.
struct TooDeep {};
// Thrown at the second of two equal keys of one object (JSON would keep the last silently).
struct DuplicateKey {
  std::string key;
};

} // namespace

std::optional<Json> parse_json(std::string_view text, std::string* error) {
  std::vector<std::set<std::string>> keys; // of each object being read, the innermost last
  const Json::parser_callback_t limit = [&keys](int depth, Json::parse_event_t event,
                                                Json& parsed) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= k_json_max_depth) {
      throw TooDeep{};
    }
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end && !keys.empty()) {
      keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
               !keys.back().insert(parsed.get<std::string>()).second) {
      throw DuplicateKey{parsed.get<std::string>()};
    }
    return true;
  };
  try {
    Json value = Json::parse(text, limit, /*allow_exceptions=*/true);
    return value;
  } catch (const TooDeep&) {
    if (error != nullptr)
      *error = "JSON nested deeper than " + std::to_string(k_json_max_depth) + " levels";
  } catch (const DuplicateKey& duplicate) {
    if (error != nullptr)
      *error = "invalid JSON (the key '" + duplicate.key +
               "' twice in one object: JSON would keep the last and drop the first unsaid)";
  } catch (const nlohmann::json::exception& e) {
    if (error != nullptr)
      *error = std::string("invalid JSON (") + e.what() + ")";
  }
  return std::nullopt;
}

} // namespace opbench::core
