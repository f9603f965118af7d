#include "opbench/results/case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::results {
namespace {

bool is_tensor_object(const Json& value) {
  return value.is_object() && value.contains("shape");
}

std::string tensor_text(const Json& value) {
  std::string out;
  const Json& shape = value["shape"];
  if (shape.empty()) {
    out = "scalar";
  } else {
    std::vector<std::string> dims;
    for (const auto& d : shape) // a size, or a named dimension as written (config/named_dims.hpp)
      dims.push_back(d.is_string() ? d.get<std::string>() : std::to_string(d.get<std::int64_t>()));
    out = core::join(dims, "x");
  }
  if (value.contains("dtype"))
    out += ":" + value["dtype"].get<std::string>();
  if (value.contains("init"))
    out += ":" + value["init"].get<std::string>();
  return out;
}

} // namespace

std::string argument_text(const Json& value) {
  if (is_tensor_object(value))
    return tensor_text(value);
  if (value.is_array() && !value.empty() && (is_tensor_object(value[0]) || value[0].is_null())) {
    std::vector<std::string> items;
    for (const auto& item : value)
      items.push_back(item.is_null() ? "none" : tensor_text(item));
    return "(" + core::join(items, ";") + ")";
  }
  if (value.is_string())
    return value.get<std::string>();
  return value.dump();
}

std::string make_case_id(const std::string& name, const Json& given, const std::string& dtype,
                         const std::string& device, int threads, Direction direction,
                         const std::string& memory_format, Stage stage) {
  std::vector<std::string> args;
  for (const auto& item : given.items())
    args.push_back(item.key() + "=" + argument_text(item.value()));
  std::string id =
      fmt::format("{}/{}/{}/{}/t{}/{}", name, args.empty() ? "-" : core::join(args, ","), dtype,
                  device, threads, core::name_of(direction));
  if (!memory_format.empty() && memory_format != "contiguous")
    id += "/" + memory_format;
  if (stage != Stage::eager)
    id += "/" + core::name_of(stage);
  // One line, nothing a terminal acts on: line-oriented files (the gate's lists) and consoles
  // take ids as they are.
  return core::printable(id);
}

std::string eager_case_id(const Case& c) {
  const std::string suffix = "/" + core::name_of(c.stage);
  if (c.stage == Stage::eager || !core::ends_with(c.case_id, suffix))
    return c.case_id;
  return c.case_id.substr(0, c.case_id.size() - suffix.size());
}

std::string case_key(const std::string& case_id) {
  const std::size_t name_end = case_id.find('/');
  return name_end == std::string::npos ? case_id
                                       : case_id.substr(0, case_id.find('/', name_end + 1));
}

bool has_4d_or_5d_tensor(const Json& given) {
  auto rank_fits = [](const Json& v) {
    return is_tensor_object(v) && (v["shape"].size() == 4 || v["shape"].size() == 5);
  };
  for (const auto& item : given.items()) {
    const Json& v = item.value();
    if (rank_fits(v))
      return true;
    if (v.is_array() && std::any_of(v.begin(), v.end(), rank_fits))
      return true;
  }
  return false;
}

Json to_json(const Case& c) {
  Json out = Json::object();
  out["case_id"] = c.case_id;
  out["name"] = c.name;
  out["kind"] = core::name_of(c.kind);
  out["operator"] = c.op;
  out["schema"] = c.schema;
  if (!c.library.empty())
    out["library"] = c.library;
  out["given"] = c.given;
  out["arguments"] = c.arguments;
  out["shape_class"] = c.shape_class;
  out["category"] = c.category;
  out["tags"] = c.tags;
  out["source"] = c.source;
  out["origin"] = c.origin;
  out["dtype"] = c.dtype;
  out["device"] = c.device;
  out["threads"] = c.threads;
  out["direction"] = core::name_of(c.direction);
  out["memory_format"] = c.memory_format;
  out["stage"] = core::name_of(c.stage);
  out["seed"] = c.seed;
  out["count"] = c.count;
  if (!c.skip_reason.empty())
    out["skip_reason"] = c.skip_reason;
  if (!c.variant.group.empty()) {
    Json variant = {
        {"group", c.variant.group}, {"point", c.variant.point}, {"baseline", c.variant.baseline}};
    if (!c.variant.baseline_id.empty()) {
      variant["baseline_id"] = c.variant.baseline_id;
      variant["baseline_operator"] = c.variant.baseline_op;
      variant["baseline_given"] = c.variant.baseline_given;
      variant["baseline_arguments"] = c.variant.baseline_arguments;
    }
    out["variant"] = variant;
  }
  return out;
}

std::string variant_key(const Case& c) {
  if (c.variant.group.empty())
    return "";
  return make_case_id(c.variant.group + c.variant.point, Json::object(), c.dtype, c.device,
                      c.threads, c.direction, c.memory_format, c.stage);
}

Case case_from_json(const Json& json, const std::string& where) {
  auto need = [&](const char* key) -> const Json& {
    if (!json.contains(key))
      throw ResultsError(where + ": missing field '" + key + "'");
    return json[key];
  };
  auto integer = [&](const char* key, std::int64_t fallback, std::int64_t low, std::int64_t high) {
    return core::integer_field(json, key, fallback, where, low, high);
  };
  auto text = [&](const char* key) {
    return json.contains(key) && json[key].is_string() ? json[key].get<std::string>()
                                                       : std::string();
  };
  Case c;
  try {
    // (as make_case_id writes ids: a file from elsewhere may hold control characters in one)
    c.case_id = core::printable(need("case_id").get<std::string>());
    c.name = need("name").get<std::string>();
    if (const std::string kind = text("kind"); !kind.empty())
      c.kind = core::parse_name_or_throw<Kind>(kind, "kind", where);
    c.op = text("operator");
    c.schema = text("schema");
    c.library = text("library");
    c.given = json.value("given", Json::object());
    c.arguments = json.value("arguments", Json::object());
    c.shape_class = text("shape_class");
    c.category = text("category");
    if (json.contains("tags") && json["tags"].is_array()) {
      for (const auto& tag : json["tags"]) {
        if (tag.is_string())
          c.tags.push_back(tag.get<std::string>());
      }
    }
    c.source = text("source");
    c.origin = text("origin");
    c.dtype = text("dtype");
    c.device = text("device");
    c.threads = static_cast<int>(integer("threads", 1, 1, 1 << 16));
    if (const std::string direction = text("direction"); !direction.empty()) {
      c.direction = core::parse_name_or_throw<Direction>(direction, "direction", where);
    }
    c.memory_format = json.value("memory_format", std::string("contiguous"));
    c.stage =
        core::parse_name_or_throw<Stage>(json.value("stage", std::string("eager")), "stage", where);
    c.seed = json.contains("seed") && json["seed"].is_number_unsigned()
                 ? json["seed"].get<std::uint64_t>()
                 : static_cast<std::uint64_t>(
                       integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
    c.count = static_cast<int>(integer("count", 1, 0, std::numeric_limits<int>::max()));
    c.skip_reason = json.value("skip_reason", std::string());
    if (json.contains("variant") && json["variant"].is_object()) {
      const Json& v = json["variant"];
      c.variant.group = v.value("group", std::string());
      c.variant.point = v.value("point", std::string());
      c.variant.baseline = v.value("baseline", false);
      c.variant.baseline_id = v.value("baseline_id", std::string());
      c.variant.baseline_op = v.value("baseline_operator", std::string());
      c.variant.baseline_given = v.value("baseline_given", Json::object());
      c.variant.baseline_arguments = v.value("baseline_arguments", Json::object());
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(where + ": bad case record (" + e.what() + ")");
  }
  return c;
}

} // namespace opbench::results
