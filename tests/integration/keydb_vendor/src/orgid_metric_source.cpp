// A metric source for a Mimir/Cortex-style store, written the way an outside vendor writes one:
// every request carries the tenant in an X-Scope-OrgID header made from `orgId`, where
// ${namespace} and ${monitoringNamespace} are the tenant's (the store itself selects the tenant;
// the host has already scoped the PromQL). Errors are the typed statuses of ext/metrics.h.
// Built twice: with ORGID_ERRORS_AS_EMPTY (orgid-metrics-sloppy.so) a refused query comes back
// as "no samples", the mistake the checker's metrics.errors must catch.
#include <curl/curl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "dha/sdk/sdk.hpp"

namespace vendor {

namespace {

using dha::sdk::Error;

size_t append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

class OrgIdMetricSource final : public dha::sdk::MetricSource {
 public:
  static constexpr dha::sdk::PluginInfo info{
#ifdef ORGID_ERRORS_AS_EMPTY
      .id = "orgid-metrics-sloppy",
#else
      .id = "orgid-metrics",
#endif
      .name = "Multi-tenant Prometheus API metric source",
      .version = "0.2.0",
      .vendor = "KeyDB Vendor Ltd.",
      .description = "Queries a Prometheus-compatible store that selects the tenant with an X-Scope-OrgID header",
      .config_schema = R"json({"keys": [
        {"name": "url", "type": "string", "required": true,
         "description": "Base URL of the store's Prometheus API (the part before /api/v1/query)"},
        {"name": "orgId", "type": "string", "default": "${namespace}",
         "description": "X-Scope-OrgID of a tenant's requests; ${namespace} and ${monitoringNamespace} are filled in"}]})json"};

  OrgIdMetricSource(const dha::sdk::Host&, const dha::sdk::json::Value& config)
      : url_(config["url"].GetString()), org_id_(config["orgId"].GetString()) {
    if (url_.rfind("http://", 0) != 0 && url_.rfind("https://", 0) != 0)
      throw Error(DHA_INVALID_ARGUMENT, "url must start with http:// or https://, got \"" + url_ + "\"");
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
  }

  dha::sdk::Samples instant_query(const dha::sdk::InstantQuery& q) const override {
    const auto doc = get("/api/v1/query", "query=" + escape(q.query), q.namespace_name, q.monitoring_namespace,
                         q.timeout_seconds, "vector");
    dha::sdk::Samples out;
    for (const auto& r : doc["data"]["result"].GetArray()) {
      dha::sdk::Sample s;
      s.labels = labels_of(r);
      s.value = number_of(r["value"]);
      out.samples.push_back(std::move(s));
    }
    return out;
  }

  dha::sdk::RangeResult range_query(const dha::sdk::RangeQuery& q) const override {
    const auto doc = get("/api/v1/query_range",
                         "query=" + escape(q.query) + "&start=" + std::to_string(q.start) +
                             "&end=" + std::to_string(q.end) + "&step=" + std::to_string(q.step),
                         q.namespace_name, q.monitoring_namespace, q.timeout_seconds, "matrix");
    dha::sdk::RangeResult out;
    for (const auto& r : doc["data"]["result"].GetArray()) {
      dha::sdk::Series s;
      s.labels = labels_of(r);
      for (const auto& point : r["values"].GetArray()) {
        const double v = number_of(point);
        if (std::isnan(v)) continue;  // no reading at this step
        s.points.emplace_back(static_cast<int64_t>(point[0].GetDouble()), v);
      }
      if (!s.points.empty()) out.series.push_back(std::move(s));
    }
    return out;
  }

 private:
  static std::string escape(const std::string& text) {
    char* e = curl_easy_escape(nullptr, text.c_str(), static_cast<int>(text.size()));
    std::string out = e != nullptr ? e : "";
    curl_free(e);
    return out;
  }

  std::string org_id_for(const std::string& ns, const std::optional<std::string>& monitoring) const {
    if (org_id_.find("${monitoringNamespace}") != std::string::npos && !monitoring)
      throw Error(DHA_UNAVAILABLE,
                  "orgId needs ${monitoringNamespace}, and namespace " + ns + " has no monitoring namespace");
    return replace_all(replace_all(org_id_, "${monitoringNamespace}", monitoring.value_or("")), "${namespace}", ns);
  }

  dha::sdk::json::Document get(const std::string& path, const std::string& query, const std::string& ns,
                               const std::optional<std::string>& monitoring, double timeout, const char* type) const {
    if (ns.empty()) throw Error(DHA_INVALID_ARGUMENT, "a query without a namespace is never sent");
    const std::string header = "X-Scope-OrgID: " + org_id_for(ns, monitoring);
    std::unique_ptr<CURL, CurlDeleter> c(curl_easy_init());
    std::unique_ptr<curl_slist, CurlDeleter> headers(curl_slist_append(nullptr, header.c_str()));
    const std::string url = url_ + path + "?" + query;
    std::string body;
    curl_easy_setopt(c.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(c.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c.get(), CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(c.get(), CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout * 1000));
    const CURLcode rc = curl_easy_perform(c.get());
    if (rc == CURLE_OPERATION_TIMEDOUT) throw Error(DHA_DEADLINE_EXCEEDED, url_ + ": no answer within the timeout");
    if (rc != CURLE_OK) throw Error(DHA_UNAVAILABLE, url_ + ": " + curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(c.get(), CURLINFO_RESPONSE_CODE, &status);
    dha::sdk::json::Document doc;
    doc.Parse(body.c_str(), body.size());
    const bool api_document =
        !doc.HasParseError() && doc.IsObject() && doc.HasMember("status") && doc["status"].IsString();
    if (api_document && std::string(doc["status"].GetString()) == "error") {
#ifdef ORGID_ERRORS_AS_EMPTY
      throw Error(DHA_NOT_FOUND, "no samples");
#endif
      const auto* e = dha::sdk::json::find(doc, "error");
      throw Error(DHA_FAILED_PRECONDITION,
                  "the store refused the query: " + std::string(e && e->IsString() ? e->GetString() : "no error text"));
    }
    if (status < 200 || status > 299) throw Error(DHA_UNAVAILABLE, url_ + ": HTTP " + std::to_string(status));
    const auto* data = api_document ? dha::sdk::json::find(doc, "data") : nullptr;
    const auto* result = data && data->IsObject() ? dha::sdk::json::find(*data, "result") : nullptr;
    const auto* result_type = data && data->IsObject() ? dha::sdk::json::find(*data, "resultType") : nullptr;
    if (result == nullptr || !result->IsArray() || result_type == nullptr || !result_type->IsString())
      throw Error(DHA_DATA_LOSS, "the answer is not a Prometheus API document");
    if (std::string(result_type->GetString()) != type)
      throw Error(DHA_DATA_LOSS, std::string("expected a ") + type + " answer, got " + result_type->GetString());
    for (const auto& r : result->GetArray()) {
      const bool ok = r.IsObject() && (std::string(type) == "vector" ? r.HasMember("value") && r["value"].IsArray()
                                                                     : r.HasMember("values") && r["values"].IsArray());
      if (!ok) throw Error(DHA_DATA_LOSS, "a series of the answer has no value");
    }
    return doc;
  }

  static std::map<std::string, std::string> labels_of(const dha::sdk::json::Value& series) {
    std::map<std::string, std::string> out;
    if (const auto* m = dha::sdk::json::find(series, "metric"); m != nullptr && m->IsObject())
      for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it)
        if (it->value.IsString()) out.emplace(it->name.GetString(), it->value.GetString());
    return out;
  }

  // [<time>, "<value>"] -> the value; Prometheus writes NaN and Inf as strings too.
  static double number_of(const dha::sdk::json::Value& point) {
    if (!point.IsArray() || point.Size() != 2 || !point[1].IsString() || !point[0].IsNumber())
      throw Error(DHA_DATA_LOSS, "a point is not [time, \"value\"]");
    const double v = std::strtod(point[1].GetString(), nullptr);
    if (std::isinf(v)) throw Error(DHA_OUT_OF_RANGE, std::string("a sample is ") + point[1].GetString());
    return v;
  }

  std::string url_;
  std::string org_id_;
};

}  // namespace vendor

DHA_EXPORT_PLUGINS(vendor::OrgIdMetricSource)
