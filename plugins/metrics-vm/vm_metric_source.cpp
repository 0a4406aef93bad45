#include "vm_metric_source.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "prometheus_response.hpp"
#include "vm_range_query.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

[[noreturn]] void bad_config(const std::string& why) {
  throw sdk::Error(DHA_INVALID_ARGUMENT, "metrics-vm configuration: " + why);
}

}  // namespace

VmMetricSource::VmMetricSource(const sdk::Host& host, const json::Value& config) : host_(host) {
  constexpr std::string_view what = "metrics-vm configuration";
  endpoint_.url = json::string_or(config, "url", "", what);
  endpoint_.url_template = json::string_or(config, "urlTemplate", kDefaultUrlTemplate, what);
  timeout_seconds_ = json::number_or(config, "timeoutSeconds", 10, what);
  const int64_t cap = json::integer_or(config, "maxResponseBytes", 4 << 20, what);
  bearer_token_file_ = json::string_or(config, "bearerTokenFile", "", what);
  ca_file_ = json::string_or(config, "caFile", "", what);

  if (!(timeout_seconds_ > 0) || !std::isfinite(timeout_seconds_))
    bad_config("timeoutSeconds must be a positive number");
  if (cap <= 0) bad_config("maxResponseBytes must be positive");
  max_response_bytes_ = static_cast<size_t>(cap);
  const std::string& base = endpoint_.url.empty() ? endpoint_.url_template : endpoint_.url;
  if (base.empty()) bad_config("url and urlTemplate are both empty");
  if (std::string why = base_url_problem(base); !why.empty()) {
    bad_config((endpoint_.url.empty() ? "urlTemplate \"" : "url \"") + base + "\" " + why);
  }
  http_global_init();
}

std::string VmMetricSource::read_bearer_token() const {
  if (bearer_token_file_.empty()) return "";
  std::ifstream in(bearer_token_file_);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    throw sdk::Error(DHA_UNAUTHENTICATED, "cannot read bearerTokenFile " + bearer_token_file_);
  }
  std::string token = text.str();
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  token.erase(token.begin(), std::find_if(token.begin(), token.end(), not_space));
  token.erase(std::find_if(token.rbegin(), token.rend(), not_space).base(), token.end());
  if (token.empty()) throw sdk::Error(DHA_UNAUTHENTICATED, "bearerTokenFile " + bearer_token_file_ + " is empty");
  if (token.find_first_of("\r\n") != std::string::npos) {
    throw sdk::Error(DHA_UNAUTHENTICATED, "bearerTokenFile " + bearer_token_file_ + " holds more than one line");
  }
  return token;
}

sdk::Samples VmMetricSource::instant_query(const sdk::InstantQuery& query) const {
  const std::string base = endpoint_.base_for(query.namespace_name, query.monitoring_namespace);
  return parse_instant_query_response(
      fetch(base, instant_query_url(base, query.query, query.namespace_name), query.timeout_seconds));
}

sdk::RangeResult VmMetricSource::range_query(const sdk::RangeQuery& query) const {
  const std::string base = endpoint_.base_for(query.namespace_name, query.monitoring_namespace);
  return parse_range_query_response(fetch(base, range_query_url(base, query), query.timeout_seconds), query.points());
}

std::string VmMetricSource::fetch(const std::string& base, const std::string& url, double timeout_seconds) const {
  HttpGetOptions options;
  options.timeout_seconds = std::min(timeout_seconds_, timeout_seconds);
  options.max_response_bytes = max_response_bytes_;
  options.bearer_token = read_bearer_token();
  options.ca_file = ca_file_;

  HttpResponse response = http_get(url, options);
  if (response.status == 200) return std::move(response.body);
  // A 4xx that carries an API error document is a refused query (bad PromQL, say): terminal for
  // this input. Everything else non-200 is the server's trouble, worth a retry.
  if (response.status >= 400 && response.status < 500) {
    try {
      (void)parse_instant_query_response(response.body);
    } catch (const sdk::Error& e) {
      if (e.status() == DHA_FAILED_PRECONDITION) throw;
    }
  }
  std::string excerpt = response.body.substr(0, 200);
  std::replace(excerpt.begin(), excerpt.end(), '\n', ' ');
  throw sdk::Error(DHA_UNAVAILABLE, "HTTP " + std::to_string(response.status) + " from " + base +
                                        (excerpt.empty() ? "" : ": " + excerpt));
}

}  // namespace dha::plugins
