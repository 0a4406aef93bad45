#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check_runner.hpp"

namespace dha::plugin_check {

struct Options {
  std::string file;
  std::string config;   // JSON given to every plugin's create ("" = defaults)
  int iterations = 200;  // for repeated-calls
};

struct Check {
  std::string name;
  std::string description;
  std::function<CheckOutcome(const Options&)> run;
};

// Every conformance check, in the order they run.
const std::vector<Check>& all_checks();

}  // namespace dha::plugin_check
