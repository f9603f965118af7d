#include "opbench/plan/sources.hpp"

#include <algorithm>
#include <map>

#include "opbench/catalog/binder.hpp"
#include "opbench/catalog/libraries.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::plan {

std::vector<results::Case> rebind(std::vector<results::Case> recorded, const std::string& path,
                                  bool load_recorded) {
  std::vector<results::Case> cases;
  std::vector<std::string> errors;
  std::map<std::string, std::pair<std::size_t, std::string>> not_loaded; // library -> cases, first
  for (auto& c : recorded) {
    const std::string where = path + ": " + c.case_id;
    if (!c.skip_reason.empty() || c.kind == results::Kind::model ||
        c.kind == results::Kind::sample) {
      cases.push_back(std::move(c)); // nothing to bind: samples and models carry their inputs
      continue;
    }
    try {
      // A custom operator's library: loaded by the user, or by their leave.
      if (!c.library.empty()) {
        const auto& loaded = catalog::loaded_libraries();
        const bool is_loaded =
            std::any_of(loaded.begin(), loaded.end(), [&](const catalog::LoadedLibrary& l) {
              return l.path == c.library || l.path == core::absolute_path(c.library);
            });
        if (load_recorded) {
          catalog::load_library(c.library, where);
        } else if (!is_loaded) {
          auto& [count, first] = not_loaded[c.library];
          if (count++ == 0)
            first = c.case_id;
          continue;
        }
      }
      const catalog::BoundOp bound = catalog::bind_case(c.op, c.given, where);
      if (bound.qualified() != c.op) {
        throw ConfigError(where + ": the arguments now bind to " + bound.qualified() + ", not " +
                          c.op);
      }
      c.schema = bound.schema;
      c.given = bound.given;
      c.arguments = bound.arguments;
      cases.push_back(std::move(c));
    } catch (const ConfigError& e) {
      errors.emplace_back(e.what());
    }
  }
  for (const auto& [library, cases_of] : not_loaded) {
    errors.push_back(path + ": " + std::to_string(cases_of.first) + " case(s) (" + cases_of.second +
                     (cases_of.first > 1 ? ", ..." : "") + ") run operators of the library " +
                     library +
                     ", which is not loaded (--from loads no code by itself): pass "
                     "--load-library " +
                     library + ", or --load-recorded-libraries to load what the file names");
  }
  if (!errors.empty())
    throw ConfigError(core::join(errors, "\n"));
  return cases;
}

std::vector<results::Case> model_cases(const std::string& model, const Json& inputs,
                                       const std::vector<std::string>& input_texts,
                                       const PlanOptions& options) {
  std::vector<results::Case> cases;
  for (const auto& device : options.devices) {
    for (int threads : options.threads) {
      results::Case c;
      c.name = "model:" + core::filename(model);
      c.kind = results::Kind::model;
      c.op = "model";
      c.given = {{"model", model}, {"inputs", inputs}};
      c.arguments = c.given;
      c.origin = model;
      c.source = model;
      c.dtype = "float32";
      c.device = device;
      c.threads = threads;
      c.direction = results::Direction::forward;
      c.seed = options.seed;
      c.case_id = results::make_case_id(c.name, {{"inputs", core::join(input_texts, ";")}}, c.dtype,
                                        device, threads, results::Direction::forward);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

} // namespace opbench::plan
