#pragma once

#include "dha/sdk/sdk.hpp"
#include "http_get.hpp"
#include "vm_endpoint.hpp"

namespace dha::plugins {

// dha.metrics/1 over the Prometheus HTTP API of VictoriaMetrics: single-node
// (<url>/api/v1/query) and cluster (<vmselect>/select/<tenant>/prometheus/api/v1/query) alike,
// since the base URL carries the difference. Returns the whole instant vector or range matrix;
// every failure is a typed error (see prometheus_response.hpp and http_get.hpp), never a zero.
class VmMetricSource final : public sdk::MetricSource {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "metrics-vm",
      .name = "VictoriaMetrics metric source",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "Instant and range PromQL/MetricsQL queries against VictoriaMetrics (single-node or vmselect)",
      .config_schema = R"json({"keys": [
        {"name": "url", "type": "string", "default": "", "required": false,
         "description": "Fixed base URL, e.g. http://vmsingle:8428 or http://vmselect:8481/select/0/prometheus; overrides urlTemplate"},
        {"name": "urlTemplate", "type": "string", "default": "http://vmselect-shortterm.${monitoringNamespace}.svc:8481/select/0/prometheus", "required": false,
         "description": "Base URL per tenant; ${monitoringNamespace} and ${namespace} are filled in"},
        {"name": "timeoutSeconds", "type": "number", "default": 10, "required": false,
         "description": "Per-request timeout; the host's own deadline applies when shorter"},
        {"name": "bearerTokenFile", "type": "string", "default": "", "required": false,
         "description": "File holding a bearer token, re-read on every request so rotation needs no restart"},
        {"name": "caFile", "type": "string", "default": "", "required": false,
         "description": "PEM bundle to verify an https endpoint with, instead of the system store"},
        {"name": "maxResponseBytes", "type": "integer", "default": 4194304, "required": false,
         "description": "Larger responses are refused (RESOURCE_EXHAUSTED)"}
      ]})json"};

  VmMetricSource(const sdk::Host& host, const sdk::json::Value& config);

  sdk::Samples instant_query(const sdk::InstantQuery& query) const override;
  // /api/v1/query_range, scoped to the query's namespace on the server as instant queries are.
  sdk::RangeResult range_query(const sdk::RangeQuery& query) const override;

 private:
  // The body of a 200 answer to GET `url`; any other status or transport failure as a typed error.
  std::string fetch(const std::string& base, const std::string& url, double timeout_seconds) const;
  std::string read_bearer_token() const;

  sdk::Host host_;
  VmEndpoint endpoint_;
  double timeout_seconds_;
  size_t max_response_bytes_;
  std::string bearer_token_file_;
  std::string ca_file_;
};

}  // namespace dha::plugins
