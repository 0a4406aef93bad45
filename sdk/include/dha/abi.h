/*
 * db-autoscaler plugin ABI, version 1.
 *
 * This header is the whole contract between the db-autoscaler host and a plugin shared object.
 * It is plain C (C11 / C++ compatible), depends only on <stdint.h>, <stddef.h>, <stdbool.h>, and
 * is frozen by sdk/abi.lock: any change needs a version bump and a line in sdk/CHANGELOG.md.
 *
 * Shape (after CLAP):
 *   - A .so exports exactly one symbol, `dha_plugin_entry_v1`, returning a `dha_plugin_entry`.
 *     The ABI major is part of the symbol name; the host refuses a file whose major differs or
 *     whose minor is newer than its own.
 *   - One .so may hold several plugins. Each has a descriptor and is instantiated by id.
 *   - An instance offers capabilities, looked up by string id with a revision:
 *     "dha.engine/1" (ext/engine.h), "dha.metrics/1" (ext/metrics.h), "dha.gate/1" (ext/gate.h),
 *     "dha.actuator/1" (ext/actuator.h).
 *
 * Rules that every function below follows:
 *   - Growth: every struct that may grow starts with `uint32_t struct_size`, and only grows at
 *     its end. A reader checks `struct_size` before touching a field added after 1.0.
 *   - Strings in are borrowed `dha_str` views, valid only for the duration of the call and not
 *     NUL-terminated unless stated. Descriptor strings are NUL-terminated and live as long as
 *     the library stays loaded.
 *   - Results go out through caller-owned `dha_sink`s. Nothing allocated on one side is ever
 *     freed on the other; objects a plugin creates are destroyed through its own `destroy`.
 *   - Domain objects (Kubernetes objects, queries, samples, decisions) cross as UTF-8 JSON text.
 *   - Every call returns a `dha_status`; on anything but DHA_OK it may write a human-readable
 *     message to its `error` sink.
 *   - No C++ exception may cross the boundary. The SDK's C++ wrapper (dha/sdk/export.hpp)
 *     catches everything; a hand-written plugin must do the same.
 */
#ifndef DHA_ABI_H
#define DHA_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DHA_ABI_VERSION_MAJOR 1
#define DHA_ABI_VERSION_MINOR 3

/* The one symbol a plugin library exports. The host looks it up by this exact name. */
#define DHA_PLUGIN_ENTRY_SYMBOL "dha_plugin_entry_v1"

#if defined(_WIN32)
#define DHA_PLUGIN_EXPORT __declspec(dllexport)
#else
#define DHA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/*
 * Status codes. The numbers mirror absl::StatusCode so that the meaning is familiar:
 * DHA_UNAVAILABLE and DHA_DEADLINE_EXCEEDED are worth a retry, DHA_INVALID_ARGUMENT and
 * DHA_FAILED_PRECONDITION are terminal for the given input. Append-only; never renumbered.
 */
typedef int32_t dha_status;
enum {
  DHA_OK = 0,
  DHA_CANCELLED = 1,
  DHA_UNKNOWN = 2,
  DHA_INVALID_ARGUMENT = 3,
  DHA_DEADLINE_EXCEEDED = 4,
  DHA_NOT_FOUND = 5,
  DHA_ALREADY_EXISTS = 6,
  DHA_PERMISSION_DENIED = 7,
  DHA_RESOURCE_EXHAUSTED = 8,
  DHA_FAILED_PRECONDITION = 9,
  DHA_ABORTED = 10,
  DHA_OUT_OF_RANGE = 11,
  DHA_UNIMPLEMENTED = 12,
  DHA_INTERNAL = 13,
  DHA_UNAVAILABLE = 14,
  DHA_DATA_LOSS = 15,
  DHA_UNAUTHENTICATED = 16
};

/* Log levels for dha_host.log. Append-only. */
typedef int32_t dha_log_level;
enum {
  DHA_LOG_DEBUG = 0,
  DHA_LOG_INFO = 1,
  DHA_LOG_WARNING = 2,
  DHA_LOG_ERROR = 3
};

/* A borrowed UTF-8 byte range. `data` may be NULL only when `size` is 0. */
typedef struct dha_str {
  const char *data;
  size_t size;
} dha_str;

/*
 * A caller-owned output buffer. The callee appends bytes with `append(ctx, data, size)`, as
 * many times as it likes, during the call only; it never keeps the sink. The caller owns the
 * memory behind `ctx`. `append` never fails from the callee's point of view.
 */
typedef struct dha_sink {
  void *ctx;
  void (*append)(void *ctx, const char *data, size_t size);
} dha_sink;

/*
 * What the host offers a plugin instance. Passed to `create`; valid until the instance's
 * `destroy` returns.
 */
typedef struct dha_host {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  /* NUL-terminated, e.g. "db-autoscaler" and "0.1.0". */
  const char *name;
  const char *version;
  void *ctx;
  /*
   * Writes one log line attributed to the calling plugin. Thread-safe; may be called from any
   * capability function. `message` is borrowed for the call.
   */
  void (*log)(void *ctx, dha_log_level level, dha_str message);
} dha_host;

/* An opaque plugin instance; see `dha_plugin`. */
typedef struct dha_plugin dha_plugin;

/*
 * Static facts about one plugin in the library. All strings are NUL-terminated and stay valid
 * while the library is loaded.
 */
typedef struct dha_plugin_descriptor {
  uint32_t struct_size;
  /* Unique id across everything a host loads, [a-z0-9][a-z0-9.-]*, e.g. "postgres". */
  const char *id;
  /* Human name, e.g. "PostgreSQL (CloudNativePG) engine adapter". */
  const char *name;
  /* The plugin's own semantic version, e.g. "1.2.0". */
  const char *version;
  const char *vendor;
  const char *description;
  /* NULL-terminated list of capability ids this plugin offers, e.g. {"dha.engine/1", NULL}. */
  const char *const *capabilities;
  /*
   * The configuration the plugin accepts, as JSON text (may be NULL for "no configuration"):
   *   {"keys": [{"name": "timeoutSeconds", "type": "number", "default": 10,
   *              "required": false, "description": "..."}]}
   * Types: "string", "integer", "number", "boolean", "object", "array". The host validates a
   * configuration against this before `create` sees it: unknown keys and wrong types are
   * refused, missing keys get their default, missing required keys are refused.
   */
  const char *config_schema;
} dha_plugin_descriptor;

/*
 * A live plugin instance, created by `dha_plugin_entry.create` and destroyed by its own
 * `destroy`. The host never touches `plugin_data`.
 */
struct dha_plugin {
  uint32_t struct_size;
  const dha_plugin_descriptor *descriptor;
  void *plugin_data;
  /* Main thread. Releases everything the instance holds; `self` is invalid afterwards. */
  void (*destroy)(const dha_plugin *self);
  /*
   * Returns the capability table for `id` (NUL-terminated, e.g. "dha.engine/1"), or NULL when
   * the plugin does not offer it. The table lives as long as the instance. Any thread.
   */
  const void *(*get_extension)(const dha_plugin *self, const char *id);
};

/*
 * The entry table returned by `dha_plugin_entry_v1()`. It must be a static object that lives
 * as long as the library is loaded.
 */
typedef struct dha_plugin_entry {
  uint32_t struct_size;
  /* The ABI this library was built against: DHA_ABI_VERSION_MAJOR / _MINOR at build time. */
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Number of plugins in this library (at least 1). Any thread. */
  uint32_t (*plugin_count)(void);
  /* Descriptor of plugin `index` (< plugin_count), or NULL when out of range. Any thread. */
  const dha_plugin_descriptor *(*plugin_descriptor)(uint32_t index);
  /*
   * Creates an instance of the plugin `plugin_id` with `config_json` (a JSON object already
   * validated and defaulted by the host against the descriptor's config_schema). On DHA_OK
   * `*out` holds the instance, to be released with its `destroy`. A configuration the plugin
   * rejects returns DHA_INVALID_ARGUMENT with a message in `error`. Main thread.
   */
  dha_status (*create)(const dha_host *host, dha_str plugin_id, dha_str config_json,
                       const dha_plugin **out, dha_sink error);
} dha_plugin_entry;

/* The exported entry point. Returns NULL only if the library cannot serve at all. */
typedef const dha_plugin_entry *(*dha_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* DHA_ABI_H */
