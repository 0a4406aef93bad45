/*
 * Capability "dha.metrics/1": a metric source. Runs instant and (since ABI 1.1) range PromQL
 * queries that the host has already scoped to one tenant. Both are thread-safe and may run
 * concurrently; they must honour the timeout they are given and never block longer.
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
 *
 * range_query(in) -> out   (since ABI 1.1: present only when struct_size covers it)
 *   in:  {"query": "<promql>", "namespace": "tenant-a",
 *         "monitoringNamespace": "tenant-root" or null,
 *         "start": 1700000000, "end": 1700604800, "step": 60,   // unix seconds, seconds
 *         "timeoutSeconds": 30}
 *   out: {"series": [{"labels": {"pod": "db-2"}, "points": [[1700000000, 420.0], ...]}, ...]}
 *   The query is evaluated at start, start + step, ... up to end; a series has a point only
 *   where it had a finite value (a NaN step is left out: no reading), in increasing time. A
 *   request of more than DHA_METRICS_MAX_RANGE_POINTS steps is refused (DHA_INVALID_ARGUMENT),
 *   as are end < start and a step that is not positive. Errors otherwise as for instant_query;
 *   DHA_NOT_FOUND when no series has a point. A table whose struct_size ends before range_query is a 1.0
 *   plugin: the host answers DHA_UNIMPLEMENTED without calling it.
 */
#ifndef DHA_EXT_METRICS_H
#define DHA_EXT_METRICS_H

#include "../abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_EXT_METRICS "dha.metrics/1"

/* The most evaluation steps one range_query may ask for: a week at one-minute steps fits. */
#define DHA_METRICS_MAX_RANGE_POINTS 11000

typedef struct dha_metrics {
  uint32_t struct_size;
  dha_status (*instant_query)(const dha_plugin *self, dha_str request_json, dha_sink out,
                              dha_sink error);
  /* Since ABI 1.1. */
  dha_status (*range_query)(const dha_plugin *self, dha_str request_json, dha_sink out,
                            dha_sink error);
} dha_metrics;

#ifdef __cplusplus
}
#endif

#endif /* DHA_EXT_METRICS_H */
