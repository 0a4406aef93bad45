#include "vm_endpoint.hpp"

#include <cctype>

#include "dha/sdk/error.hpp"

namespace dha::plugins {
namespace {

// RFC 1123 label, as Kubernetes namespace names are.
bool is_dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

std::string VmEndpoint::base_for(std::string_view namespace_name,
                                 const std::optional<std::string>& monitoring_namespace) const {
  std::string base = url;
  if (base.empty()) {
    base = url_template;
    if (base.find("${monitoringNamespace}") != std::string::npos) {
      if (!monitoring_namespace || monitoring_namespace->empty()) {
        throw sdk::Error(DHA_UNAVAILABLE, "namespace \"" + std::string(namespace_name) +
                                              "\" has no monitoring namespace label "
                                              "(namespace.cozystack.io/monitoring): no metrics URL");
      }
      if (!is_dns_label(*monitoring_namespace)) {
        throw sdk::Error(DHA_INVALID_ARGUMENT,
                         "monitoring namespace \"" + *monitoring_namespace + "\" is not a valid namespace name");
      }
      replace_all(base, "${monitoringNamespace}", *monitoring_namespace);
    }
    if (base.find("${namespace}") != std::string::npos) {
      if (!is_dns_label(namespace_name)) {
        throw sdk::Error(DHA_INVALID_ARGUMENT,
                         "namespace \"" + std::string(namespace_name) + "\" is not a valid namespace name");
      }
      replace_all(base, "${namespace}", namespace_name);
    }
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base;
}

namespace {

void append_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
}

}  // namespace

std::string instant_query_url(std::string_view base, std::string_view query, std::string_view namespace_name) {
  if (namespace_name.empty()) {
    throw sdk::Error(DHA_INVALID_ARGUMENT, "the query has no namespace to be scoped to; it is not sent");
  }
  std::string out(base);
  out += "/api/v1/query?query=";
  append_escaped(out, query);
  out += "&extra_label=";
  append_escaped(out, "namespace=" + std::string(namespace_name));
  return out;
}

std::string base_url_problem(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "must start with http:// or https://";
  const std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return "must start with http:// or https://";
  const std::string_view rest = url.substr(scheme_end + 3);
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') return "has no host";
  if (url.find_first_of("?#") != std::string_view::npos) return "must not carry a query or fragment";
  if (url.find_first_of(" \t\r\n") != std::string_view::npos) return "must not contain whitespace";
  return "";
}

}  // namespace dha::plugins
