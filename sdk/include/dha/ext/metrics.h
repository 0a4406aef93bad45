/*
 * Capability "dha.metrics/1": a metric source. Runs instant PromQL queries that the host has
 * already scoped to one tenant. `instant_query` is thread-safe and may run concurrently; it must
 * honour the timeout it is given and never block longer.
 *
 * instant_query(in) -> out:
 *   in:  {"query": "<promql>", "namespace": "tenant-a",
 *         "monitoringNamespace": "tenant-root" or null,   // from the namespace's label
 *         "timeoutSeconds": 10}
 *   out: {"samples": [{"labels": {"__name__": "...", "pod": "db-2"}, "value": 420.0}, ...]}
 *   Every returned value is finite. Errors are typed by status, never by a zero value:
 *     DHA_NOT_FOUND           the result vector is empty
 *     DHA_UNAVAILABLE         no connection, or an HTTP error status
 *     DHA_DEADLINE_EXCEEDED   the timeout passed
 *     DHA_DATA_LOSS           the response is not a valid Prometheus API document
 *     DHA_FAILED_PRECONDITION the API answered status "error" (a bad query, say)
 *     DHA_OUT_OF_RANGE        a sample is NaN or +-Inf
 *     DHA_RESOURCE_EXHAUSTED  the response is larger than the configured cap
 */
#ifndef DHA_EXT_METRICS_H
#define DHA_EXT_METRICS_H

#include "../abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_EXT_METRICS "dha.metrics/1"

typedef struct dha_metrics {
  uint32_t struct_size;
  dha_status (*instant_query)(const dha_plugin *self, dha_str request_json, dha_sink out,
                              dha_sink error);
} dha_metrics;

#ifdef __cplusplus
}
#endif

#endif /* DHA_EXT_METRICS_H */
