/*
 * Capability "dha.actuator/1": how a replica count reaches a target. An actuator plans API
 * requests; the host carries them out (with its own identity, field manager and retries), so an
 * actuator never needs credentials. Pure, thread-safe.
 *
 * plan(in) -> out:
 *   in:  {"action": "scale" | "release",      // release: the DHA is going away
 *         "dha": {"namespace": "tenant-a", "name": "db"},
 *         "target": <target object>, "replicasPath": "spec.replicas",
 *         "currentReplicas": 3, "desiredReplicas": 4}
 *   out: {"requests": [{"subresource": "" | "scale" | "status",
 *                       "patchType": "merge" | "json",
 *                       "body": {...}}]}
 *   Requests apply to the target object, in order. An empty list means nothing to do.
 */
#ifndef DHA_EXT_ACTUATOR_H
#define DHA_EXT_ACTUATOR_H

#include "../abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_EXT_ACTUATOR "dha.actuator/1"

typedef struct dha_actuator {
  uint32_t struct_size;
  dha_status (*plan)(const dha_plugin *self, dha_str request_json, dha_sink out,
                     dha_sink error);
} dha_actuator;

#ifdef __cplusplus
}
#endif

#endif /* DHA_EXT_ACTUATOR_H */
