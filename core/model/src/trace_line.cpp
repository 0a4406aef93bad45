#include "dha/model/trace_line.hpp"

#include <charconv>

namespace dha::model {
namespace {

// Reads "<int>" at the front of `rest` and drops it; nullopt when there is none.
std::optional<std::int32_t> take_int(std::string_view& rest) {
  std::int32_t value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end == rest.data()) return std::nullopt;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  return value;
}

bool take(std::string_view& rest, std::string_view prefix) {
  if (rest.substr(0, prefix.size()) != prefix) return false;
  rest.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::string trace_line(const TraceEntry& e) {
  std::string out = e.gate + ": " + std::to_string(e.in) + " -> " + std::to_string(e.out);
  if (!e.reason.empty()) out += ", " + e.reason;
  if (!e.message.empty()) out += ": " + e.message;
  return out;
}

std::optional<TraceEntry> parse_trace_line(std::string_view line) {
  TraceEntry e;
  const auto gate_end = line.find(": ");
  if (gate_end == std::string_view::npos) return std::nullopt;
  e.gate = std::string(line.substr(0, gate_end));
  std::string_view rest = line.substr(gate_end + 2);
  const auto in = take_int(rest);
  if (!in || !take(rest, " -> ")) return std::nullopt;
  const auto out = take_int(rest);
  if (!out) return std::nullopt;
  e.in = *in;
  e.out = *out;
  if (take(rest, ", ")) {
    const auto reason_end = rest.find(": ");
    e.reason = std::string(rest.substr(0, reason_end));
    if (e.reason.empty()) return std::nullopt;  // ", " always comes with a reason
    rest = reason_end == std::string_view::npos ? std::string_view() : rest.substr(reason_end);
  }
  if (take(rest, ": ")) {
    e.message = std::string(rest);
    if (e.message.empty()) return std::nullopt;
    rest = {};
  }
  if (!rest.empty()) return std::nullopt;
  return e;
}

bool fits_trace_lines(const std::vector<TraceEntry>& trace) {
  for (const auto& e : trace)
    if (e.gate.find_first_of(":\n") != std::string::npos || e.reason.find(':') != std::string::npos) return false;
  return true;
}

}  // namespace dha::model
