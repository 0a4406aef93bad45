/*
 * The kit's direct calls need a plugin with every capability but the engine, and one that
 * answers garbage: two plugins in one library, written against abi.h alone (not the SDK, whose
 * export barrier would never let garbage out). Each call logs its request through the host, so
 * a test sees what crossed the C ABI.
 *
 *   "kit-fixture"          gate: clamp to 3 (reason FixtureHold); actuator: one scale patch to 4;
 *                          metrics: one sample 42, one series [[100, 1], [160, 2]]
 *   "kit-fixture-garbage"  every answer is a document the operator refuses; it is an engine
 *                          adapter too, whose topology answers garbage
 */
#include <string.h>

#include "dha/abi.h"
#include "dha/ext/actuator.h"
#include "dha/ext/engine.h"
#include "dha/ext/gate.h"
#include "dha/ext/metrics.h"

static const dha_host* fx_host[2];

static void put(dha_sink sink, const char* text) { sink.append(sink.ctx, text, strlen(text)); }

static int garbage(const dha_plugin* self);

static dha_status answer(const dha_plugin* self, const char* call, dha_str request, dha_sink out, const char* good,
                         const char* bad) {
  const dha_host* host = fx_host[garbage(self)];
  if (host != NULL) {
    dha_str name = {call, strlen(call)};
    host->log(host->ctx, DHA_LOG_INFO, name);
    host->log(host->ctx, DHA_LOG_INFO, request);
  }
  put(out, garbage(self) ? bad : good);
  return DHA_OK;
}

static dha_status fx_evaluate(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "evaluate", request, out,
                "{\"verdict\":\"clamp\",\"replicas\":3,\"reason\":\"FixtureHold\",\"message\":\"held at 3\"}",
                "this is not JSON");
}

static dha_status fx_plan(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(
      self, "plan", request, out,
      "{\"requests\":[{\"subresource\":\"scale\",\"patchType\":\"merge\",\"body\":{\"spec\":{\"replicas\":4}}}]}",
      "{\"requests\":[{\"subresource\":\"spec\",\"patchType\":\"merge\",\"body\":{}}]}");
}

static dha_status fx_instant_query(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "instant_query", request, out, "{\"samples\":[{\"labels\":{\"pod\":\"db-2\"},\"value\":42}]}",
                "{\"samples\":[{\"labels\":{},\"value\":\"many\"}]}");
}

static dha_status fx_range_query(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "range_query", request, out, "{\"series\":[{\"labels\":{},\"points\":[[100,1],[160,2]]}]}",
                "{\"series\":[{\"labels\":{},\"points\":[[160,2],[100,1]]}]}");
}

static dha_status fx_targets(const dha_plugin* self, dha_sink out, dha_sink error) {
  (void)self;
  (void)error;
  put(out,
      "[{\"apiGroup\":\"example.com\",\"version\":\"v1\",\"kind\":\"Widget\",\"plural\":\"widgets\","
      "\"actuator\":\"builtin.merge-patch\"}]");
  return DHA_OK;
}

static dha_status fx_topology(const dha_plugin* self, dha_str target, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "topology", target, out, "", "{\"primaryCount\":\"one\"}");
}

static dha_status fx_queries(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "queries", request, out, "", "[]");
}

static dha_status fx_health(const dha_plugin* self, dha_str request, dha_sink out, dha_sink error) {
  (void)error;
  return answer(self, "health", request, out, "", "{}");
}

static const dha_engine fx_engine = {sizeof(dha_engine), fx_targets, fx_topology, fx_queries, fx_health};
static const dha_gate fx_gate = {sizeof(dha_gate), fx_evaluate};
static const dha_actuator fx_actuator = {sizeof(dha_actuator), fx_plan};
static const dha_metrics fx_metrics = {sizeof(dha_metrics), fx_instant_query, fx_range_query};

static const char* const fx_capabilities[] = {DHA_EXT_GATE, DHA_EXT_ACTUATOR, DHA_EXT_METRICS, NULL};
static const char* const fx_garbage_capabilities[] = {DHA_EXT_ENGINE, DHA_EXT_GATE, DHA_EXT_ACTUATOR, DHA_EXT_METRICS,
                                                      NULL};

static const dha_plugin_descriptor fx_descriptors[2] = {
    {sizeof(dha_plugin_descriptor), "kit-fixture", "Kit fixture", "1.0.0", "db-autoscaler tests",
     "A gate, an actuator and a metric source with fixed answers", fx_capabilities, NULL},
    {sizeof(dha_plugin_descriptor), "kit-fixture-garbage", "Kit fixture, garbage", "1.0.0", "db-autoscaler tests",
     "The same capabilities and an engine, answering documents the operator refuses", fx_garbage_capabilities, NULL}};

static uint32_t fx_plugin_count(void) { return 2; }

static const dha_plugin_descriptor* fx_plugin_descriptor(uint32_t index) {
  return index < 2 ? &fx_descriptors[index] : NULL;
}

static const void* fx_get_extension(const dha_plugin* self, const char* id) {
  if (strcmp(id, DHA_EXT_ENGINE) == 0) return garbage(self) ? &fx_engine : NULL;
  if (strcmp(id, DHA_EXT_GATE) == 0) return &fx_gate;
  if (strcmp(id, DHA_EXT_ACTUATOR) == 0) return &fx_actuator;
  if (strcmp(id, DHA_EXT_METRICS) == 0) return &fx_metrics;
  return NULL;
}

static void fx_destroy(const dha_plugin* self) { fx_host[garbage(self)] = NULL; }

static const dha_plugin fx_instances[2] = {
    {sizeof(dha_plugin), &fx_descriptors[0], NULL, fx_destroy, fx_get_extension},
    {sizeof(dha_plugin), &fx_descriptors[1], NULL, fx_destroy, fx_get_extension}};

static int garbage(const dha_plugin* self) { return self == &fx_instances[1]; }

static dha_status fx_create(const dha_host* host, dha_str plugin_id, dha_str config, const dha_plugin** out,
                            dha_sink error) {
  int i;
  (void)config;
  for (i = 0; i < 2; ++i) {
    if (strlen(fx_descriptors[i].id) == plugin_id.size &&
        memcmp(fx_descriptors[i].id, plugin_id.data, plugin_id.size) == 0) {
      fx_host[i] = host;
      *out = &fx_instances[i];
      return DHA_OK;
    }
  }
  put(error, "unknown plugin id");
  return DHA_NOT_FOUND;
}

static const dha_plugin_entry fx_entry = {sizeof(dha_plugin_entry), DHA_ABI_VERSION_MAJOR, DHA_ABI_VERSION_MINOR,
                                          fx_plugin_count,          fx_plugin_descriptor,  fx_create};

DHA_PLUGIN_EXPORT const dha_plugin_entry* dha_plugin_entry_v1(void) { return &fx_entry; }
