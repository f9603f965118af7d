#pragma once
// The notes `compare` adds beside its verdicts when the two runs differ in what makes a time (the
// setup, how cases were called, the host's memory bandwidth, the machine's speed), and the speed
// canaries --adjust-speed divides by. Internal to compare/ (compare.cpp).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opbench/compare/compare.hpp"
#include "opbench/core/json.hpp"

namespace opbench::compare::detail {

// results::setup_difference's note, when the two runs' setups differ.
void note_setup_differences(const Json& base, const Json& candidate,
                            std::vector<std::string>& notes);

void note_call_path_differences(const std::map<std::string, std::vector<std::string>>& changed,
                                std::vector<std::string>& notes);

void note_bandwidth_difference(const Json& base, const Json& candidate,
                               std::vector<std::string>& notes);

std::map<std::string, double> fastest_canaries(const Json& summary);

std::map<std::string, std::pair<double, double>> common_canaries(const Json& base,
                                                                 const Json& candidate);

void note_speed_difference(const std::map<std::string, std::pair<double, double>>& canaries,
                           const CompareOptions& options,
                           const std::map<std::string, double>& divided,
                           std::vector<std::string>& notes);

} // namespace opbench::compare::detail
