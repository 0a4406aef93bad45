/*
 * Capability "dha.engine/1": an engine adapter. It knows one database engine's topology and how
 * to read its load; it never performs I/O itself. Every function is pure with respect to its
 * input, thread-safe, and may be called concurrently from several host threads.
 *
 * All documents are JSON text. Shapes (fields not listed are ignored by the reader; readers
 * accept missing optional fields):
 *
 * targets -> out:
 *   [{"apiGroup": "apps.cozystack.io", "version": "v1alpha1", "kind": "Postgres",
 *     "plural": "postgreses", "actuator": "builtin.merge-patch"}, ...]
 *   `actuator` names the actuator plugin that changes the replica count: "builtin.merge-patch"
 *   (JSON merge patch of spec.<replicasPath> plus the managed-by marker) or "builtin.scale"
 *   (the target's /scale subresource), or any loaded dha.actuator/1 plugin id.
 *
 * topology(in = the target object exactly as read from the API server) -> out:
 *   {"primaryCount": 1,               // instances that never serve reads
 *    "quorumFloor": 2,                // fewest total instances that keep the engine's quorum
 *    "scalable": true, "reason": "",  // reason says why not, in words for a tenant
 *    "currentReplicas": 3,            // null when the object has no replicas value
 *    "replicasPath": "spec.replicas", // where the count lives (dot path from the object root)
 *    "releaseName": "postgres-db",
 *    "health": {"source": "object", "apiGroup": "cozystack.io", "version": "v1alpha1",
 *               "kind": "WorkloadMonitor", "plural": "workloadmonitors", "name": "postgres-db"}
 *              or {"source": "target"} when the target object's own status tells health,
 *    "resources": {"cpu": "1", "memory": "512Mi"} or null,  // per-pod request, if explicit
 *    "resourcesPreset": "t1.micro"}   // preset to look up when resources is null ("" = none)
 *   A target the adapter cannot read at all returns DHA_INVALID_ARGUMENT with a message.
 *
 * queries(in) -> out:
 *   in:  {"namespace": "tenant-a", "name": "db", "releaseName": "postgres-db",
 *         "apiGroup": "apps.cozystack.io", "kind": "Postgres",
 *         "metricTypes": ["ReadConnections", "ReadCPUUtilization"]}
 *   out: {"driver": {"ReadConnections": "<promql>", ...},
 *         "lag": {"query": "<promql>", "unit": "seconds"},   // query "" = no lag signal
 *         "writeActivity": "<promql>",                      // "" = no write signal
 *         "grouped": {                                      // since 1.2, optional
 *           "by": {"label_apps_cozystack_io_application_name": "${name}"},
 *           "driver": {"ReadConnections": "<promql>", ...},
 *           "lag": "<promql>", "writeActivity": "<promql>",   // "" = per target only
 *           "readyEstimate": "<promql>"},                   // since 1.3, optional
 *         "readyEstimate": "<promql>"}                      // since 1.3, optional
 *   Queries are templates. Label values that come from the target are written as the
 *   placeholders ${namespace}, ${name} and ${release} inside double quotes, e.g.
 *   `cnpg_backends_total{namespace="${namespace}"}`. The host substitutes them with escaped
 *   values and refuses any query in which a selector lacks namespace="${namespace}": a plugin
 *   cannot read another tenant's series. A driver query sums over read-serving replicas only.
 *   A metric type the adapter does not support is left out of "driver" (the host then treats
 *   that metric as unavailable). `unit` is "seconds" or "bytes"; the lag brake uses seconds only.
 *   "grouped" (since 1.2) offers the same signals for every target of the namespace and kind in
 *   one query each, so that the host asks one query per signal and cycle instead of one per
 *   target: its only placeholder is ${namespace}, it keeps every series the per-target query
 *   aggregates for any target, and aggregates with the same function `by` the labels named in
 *   "by"; "by" maps each label to the value it has for this target (a template of ${name},
 *   ${release} or ${namespace}, substituted verbatim). The host reads a target's value from the
 *   answer's series with those label values, scoped and checked as any query, and asks the
 *   per-target query when the grouped one cannot serve (a signal left out, a refusal, a
 *   non-finite series, an answer too large). A host before 1.2 ignores the field.
 *   "readyEstimate" (since 1.3; absent or "" = none) is the seconds a new replica of this target
 *   would take to become ready, estimated from the data it must copy; a query like the others,
 *   with its grouped form in "grouped" as for any signal. The host reads it only for an Adaptive DHA that has not yet measured a ready time
 *   of its own, bounds it, and treats a failed or non-finite answer as no estimate. A host
 *   before 1.3 ignores the field.
 *
 * health(in) -> out:
 *   in:  {"target": <target object>, "object": <health object, or the target again when the
 *         topology said {"source": "target"}>}
 *   out: {"operational": true, "availableReplicas": 3}
 *   An object that does not (yet) tell health returns DHA_FAILED_PRECONDITION with a message;
 *   the host then freezes with HealthUnknown.
 */
#ifndef DHA_EXT_ENGINE_H
#define DHA_EXT_ENGINE_H

#include "../abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_EXT_ENGINE "dha.engine/1"

typedef struct dha_engine {
  uint32_t struct_size;
  dha_status (*targets)(const dha_plugin *self, dha_sink out, dha_sink error);
  dha_status (*topology)(const dha_plugin *self, dha_str target_json, dha_sink out,
                         dha_sink error);
  dha_status (*queries)(const dha_plugin *self, dha_str request_json, dha_sink out,
                        dha_sink error);
  dha_status (*health)(const dha_plugin *self, dha_str request_json, dha_sink out,
                       dha_sink error);
} dha_engine;

#ifdef __cplusplus
}
#endif

#endif /* DHA_EXT_ENGINE_H */
