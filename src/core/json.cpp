#include "opbench/core/json.hpp"

namespace opbench::core {
namespace {

// Thrown by the parser's callback at the first value past the limit; it stops the parse there.
struct TooDeep {};

} // namespace

std::optional<Json> parse_json(std::string_view text, std::string* error) {
  const Json::parser_callback_t limit = [](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= k_json_max_depth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    Json value = Json::parse(text, limit, /*allow_exceptions=*/true);
    return value;
  } catch (const TooDeep&) {
    if (error != nullptr)
      *error = "JSON nested deeper than " + std::to_string(k_json_max_depth) + " levels";
  } catch (const nlohmann::json::exception& e) {
    if (error != nullptr)
      *error = std::string("invalid JSON (") + e.what() + ")";
  }
  return std::nullopt;
}

} // namespace opbench::core
