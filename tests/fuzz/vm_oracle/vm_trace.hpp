#pragma once

// What VictoriaMetrics says it read: the series filters of every "fetch matching series" step in
// the trace of a query (`/api/v1/query?...&trace=1`, VictoriaMetrics 1.79 and later).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::fuzz {

struct TagFilter {
  std::string label;  // "__name__" for the metric name
  std::string op;     // = != =~ !~
  std::string value;  // unquoted
};

// One series search: every filter must match (VictoriaMetrics prints one group per `or` branch
// of a MetricsQL filter; each group is a search of its own).
using FilterGroup = std::vector<TagFilter>;

// Reads a Go-quoted string ("a\"b\x00\u00e9") at the start of `text`, moving past it; nullopt if
// it is not one.
std::optional<std::string> go_unquote(std::string_view& text);

// The filter groups of one trace message of the form
// `fetch matching series: filters=[{__name__="x",namespace="a"}], timeRange=...`; nullopt when the
// message is of another kind, an error text when it is of this kind but does not read.
struct FetchStep {
  std::vector<FilterGroup> groups;
  std::string error;
};
std::optional<FetchStep> parse_fetch_message(std::string_view message);

// Every fetch step of a whole /api/v1/query answer with a trace (the JSON text).
struct TracedAnswer {
  std::string status;      // "success" or "error"; empty when the body is not an API answer
  std::string error;       // the error text of a refused query
  std::string result;      // the data, canonical (series sorted) for comparisons
  bool has_trace = false;  // a trace was present
  std::vector<FetchStep> fetches;
};
TracedAnswer read_traced_answer(const std::string& body);

// Whether the group can only match series with namespace="<ns>".
bool pinned_to(const FilterGroup& group, std::string_view ns);

std::string to_text(const FilterGroup& group);

}  // namespace dha::fuzz
