#include "vm_range_query.hpp"

#include "vm_endpoint.hpp"

namespace dha::plugins {

std::string range_query_url(std::string_view base, const sdk::RangeQuery& query) {
  // Built from the instant URL so that the escaping and the namespace scope cannot drift apart.
  std::string url = instant_query_url(base, query.query, query.namespace_name);
  constexpr std::string_view kInstantPath = "/api/v1/query?";
  url.replace(base.size(), kInstantPath.size(), "/api/v1/query_range?");
  url += "&start=" + std::to_string(query.start) + "&end=" + std::to_string(query.end) +
         "&step=" + std::to_string(query.step) + "s";
  return url;
}

}  // namespace dha::plugins
