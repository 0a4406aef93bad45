#include "simulate_compare.hpp"

#include <fmt/format.h>

namespace dha::cli {
namespace {

struct Cells {
  std::string name, replica_seconds, short_of_need, ratio, above, unavoidable, provisioning, reaction, held, other,
      actions;
};

// Every row of the table, the bound first: it is what each behaviour is measured against. The
// ratio is (replica-s + short) over the bound, outage seconds left out of all three: the
// replica-seconds a behaviour saved by leaving load unserved count as spent.
std::vector<Cells> cells(const std::vector<CompareRow>& rows) {
  std::vector<Cells> out;
  if (rows.empty()) return out;
  const auto& first = rows.front().summary;
  out.push_back({"bound", std::to_string(first.bound_replica_seconds), "0", "1.00",
                 std::to_string(first.overload_unavoidable), std::to_string(first.overload_unavoidable), "0", "0", "0",
                 "0", "-"});
  for (const auto& r : rows) {
    const auto& s = r.summary;
    out.push_back({r.name, std::to_string(s.replica_seconds), std::to_string(s.shortfall_replica_seconds),
                   fmt::format("{:.2f}", decide::bound_ratio(s)), std::to_string(s.seconds_above_target),
                   std::to_string(s.overload_unavoidable), std::to_string(s.overload_provisioning),
                   std::to_string(s.overload_reaction), std::to_string(s.overload_held),
                   std::to_string(s.overload_other), std::to_string(s.scale_actions)});
  }
  return out;
}

}  // namespace

std::string compare_table(const std::vector<CompareRow>& rows) {
  constexpr const char* kRow = "{:<14} {:>10} {:>8} {:>7} {:>10} {:>11} {:>12} {:>8} {:>6} {:>6} {:>7}\n";
  std::string out = fmt::format(kRow, "behaviour", "replica-s", "short", "xbound", "overloaded", "unavoidable",
                                "provisioning", "reaction", "held", "other", "actions");
  for (const auto& c : cells(rows))
    out += fmt::format(kRow, c.name, c.replica_seconds, c.short_of_need, c.ratio, c.above, c.unavoidable,
                       c.provisioning, c.reaction, c.held, c.other, c.actions);
  return out;
}

std::string compare_markdown(const std::vector<CompareRow>& rows) {
  std::string out =
      "| behaviour | replica-s | short of need | × bound | overloaded s | unavoidable | provisioning | reaction | "
      "held | other | actions |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& c : cells(rows))
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.name, c.replica_seconds,
                       c.short_of_need, c.ratio, c.above, c.unavoidable, c.provisioning, c.reaction, c.held, c.other,
                       c.actions);
  return out;
}

}  // namespace dha::cli
