#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dha::plugins {

// Where a tenant's queries go. A fixed `url` wins; otherwise `url_template` is filled with
// ${monitoringNamespace} (the label namespace.cozystack.io/monitoring on the tenant's
// namespace) and ${namespace}. The default template is the reference's per-namespace rule,
// vmselect-shortterm on port 8481, cluster tenant 0.
inline constexpr std::string_view kDefaultUrlTemplate =
    "http://vmselect-shortterm.${monitoringNamespace}.svc:8481/select/0/prometheus";

struct VmEndpoint {
  std::string url;           // fixed base URL, or empty
  std::string url_template;  // used when url is empty

  // The base URL for one request, without a trailing '/'. Throws sdk::Error:
  // DHA_UNAVAILABLE when the template needs a monitoring namespace the tenant does not have,
  // DHA_INVALID_ARGUMENT when a namespace value is not a DNS label (it goes into a host name).
  std::string base_for(std::string_view namespace_name, const std::optional<std::string>& monitoring_namespace) const;
};

// "<base>/api/v1/query?query=<escaped>&extra_label=namespace=<escaped namespace>"; escaping
// is RFC 3986 unreserved-only. The extra_label makes VictoriaMetrics add the matcher
// namespace="<namespace>" to every selector of the query itself, after expanding it: the
// tenant's scope holds on the server even for a query the host's check misread. Throws
// sdk::Error(DHA_INVALID_ARGUMENT) for an empty namespace: an unscoped query is never sent.
std::string instant_query_url(std::string_view base, std::string_view query, std::string_view namespace_name);

// Checks a configured base URL: http or https, a host, no query or fragment. "" when fine.
std::string base_url_problem(std::string_view url);

}  // namespace dha::plugins
