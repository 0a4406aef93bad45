/*
 * The frozen layout of ABI 1.1 (1.0 and what was appended since) on LP64 targets (x86_64,
 * aarch64). Included from a C11 and a C++20 translation unit, so both languages agree on every
 * size and offset. A failure here means a change broke binary compatibility with plugins built.
 */
#include <stddef.h>
#include <stdint.h>

#include "dha/abi.h"
#include "dha/ext/actuator.h"
#include "dha/ext/engine.h"
#include "dha/ext/gate.h"
#include "dha/ext/metrics.h"

#ifdef __cplusplus
#define DHA_LAYOUT(cond) static_assert(cond, #cond)
#else
#define DHA_LAYOUT(cond) _Static_assert(cond, #cond)
#endif

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
DHA_LAYOUT(sizeof(dha_status) == 4);
DHA_LAYOUT(sizeof(dha_str) == 16 && offsetof(dha_str, size) == 8);
DHA_LAYOUT(sizeof(dha_sink) == 16 && offsetof(dha_sink, append) == 8);

DHA_LAYOUT(offsetof(dha_host, struct_size) == 0);
DHA_LAYOUT(offsetof(dha_host, abi_major) == 4);
DHA_LAYOUT(offsetof(dha_host, abi_minor) == 8);
DHA_LAYOUT(offsetof(dha_host, name) == 16);
DHA_LAYOUT(offsetof(dha_host, version) == 24);
DHA_LAYOUT(offsetof(dha_host, ctx) == 32);
DHA_LAYOUT(offsetof(dha_host, log) == 40);
DHA_LAYOUT(sizeof(dha_host) == 48);

DHA_LAYOUT(offsetof(dha_plugin_descriptor, struct_size) == 0);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, id) == 8);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, name) == 16);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, version) == 24);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, vendor) == 32);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, description) == 40);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, capabilities) == 48);
DHA_LAYOUT(offsetof(dha_plugin_descriptor, config_schema) == 56);
DHA_LAYOUT(sizeof(dha_plugin_descriptor) == 64);

DHA_LAYOUT(offsetof(dha_plugin, struct_size) == 0);
DHA_LAYOUT(offsetof(dha_plugin, descriptor) == 8);
DHA_LAYOUT(offsetof(dha_plugin, plugin_data) == 16);
DHA_LAYOUT(offsetof(dha_plugin, destroy) == 24);
DHA_LAYOUT(offsetof(dha_plugin, get_extension) == 32);
DHA_LAYOUT(sizeof(dha_plugin) == 40);

DHA_LAYOUT(offsetof(dha_plugin_entry, struct_size) == 0);
DHA_LAYOUT(offsetof(dha_plugin_entry, abi_major) == 4);
DHA_LAYOUT(offsetof(dha_plugin_entry, abi_minor) == 8);
DHA_LAYOUT(offsetof(dha_plugin_entry, plugin_count) == 16);
DHA_LAYOUT(offsetof(dha_plugin_entry, plugin_descriptor) == 24);
DHA_LAYOUT(offsetof(dha_plugin_entry, create) == 32);
DHA_LAYOUT(sizeof(dha_plugin_entry) == 40);

DHA_LAYOUT(offsetof(dha_engine, targets) == 8);
DHA_LAYOUT(offsetof(dha_engine, topology) == 16);
DHA_LAYOUT(offsetof(dha_engine, queries) == 24);
DHA_LAYOUT(offsetof(dha_engine, health) == 32);
DHA_LAYOUT(sizeof(dha_engine) == 40);
DHA_LAYOUT(offsetof(dha_metrics, instant_query) == 8);
/* 1.1 appended range_query; a 1.0 table is the first 16 bytes. */
DHA_LAYOUT(offsetof(dha_metrics, range_query) == 16 && sizeof(dha_metrics) == 24);
DHA_LAYOUT(offsetof(dha_gate, evaluate) == 8 && sizeof(dha_gate) == 16);
DHA_LAYOUT(offsetof(dha_actuator, plan) == 8 && sizeof(dha_actuator) == 16);
#endif

/* Status codes and log levels are part of the ABI too: never renumbered. */
DHA_LAYOUT(DHA_OK == 0 && DHA_INVALID_ARGUMENT == 3 && DHA_DEADLINE_EXCEEDED == 4 && DHA_NOT_FOUND == 5);
DHA_LAYOUT(DHA_FAILED_PRECONDITION == 9 && DHA_OUT_OF_RANGE == 11 && DHA_UNIMPLEMENTED == 12);
DHA_LAYOUT(DHA_INTERNAL == 13 && DHA_UNAVAILABLE == 14 && DHA_DATA_LOSS == 15 && DHA_UNAUTHENTICATED == 16);
DHA_LAYOUT(DHA_LOG_DEBUG == 0 && DHA_LOG_INFO == 1 && DHA_LOG_WARNING == 2 && DHA_LOG_ERROR == 3);
