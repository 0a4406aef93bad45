/*
 * Capability "dha.gate/1": an extra guardrail. Plugin gates run after the built-in chain, in the
 * order the host configuration lists them, and see what the built-ins proposed. Pure, thread-safe.
 *
 * evaluate(in) -> out:
 *   in:  {"now": 10000,                       // seconds
 *         "dha": {"namespace": "tenant-a", "name": "db"},
 *         "spec": {...}, "observation": {...}, "state": {...},   // as in `db-autoscaler decide`
 *         "proposal": {"kind": "Scale", "currentReplicas": 3, "replicas": 4}}
 *   out: {"verdict": "pass"}
 *        {"verdict": "clamp", "replicas": 3, "reason": "BackupWindow", "message": "..."}
 *        {"verdict": "freeze", "reason": "BackupWindow", "message": "..."}
 *   A clamp may only move the proposal toward currentReplicas; the host refuses anything else,
 *   and treats an error status as a freeze (fail closed).
 */
#ifndef DHA_EXT_GATE_H
#define DHA_EXT_GATE_H

#include "../abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_EXT_GATE "dha.gate/1"

typedef struct dha_gate {
  uint32_t struct_size;
  dha_status (*evaluate)(const dha_plugin *self, dha_str request_json, dha_sink out,
                         dha_sink error);
} dha_gate;

#ifdef __cplusplus
}
#endif

#endif /* DHA_EXT_GATE_H */
