#pragma once

#include <string>
#include <vector>

#include "dha/simulate/simulation.hpp"

// The table `simulate --compare` prints: one row per behaviour, after the clairvoyant bound.
namespace dha::cli {

struct CompareRow {
  std::string name;
  decide::SimulationSummary summary;
};

std::string compare_table(const std::vector<CompareRow>& rows);
std::string compare_markdown(const std::vector<CompareRow>& rows);

}  // namespace dha::cli
