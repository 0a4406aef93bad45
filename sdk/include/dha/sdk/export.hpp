#pragma once

// Turns plugin classes (plugin.hpp) into the C ABI of abi.h:
//
//   DHA_EXPORT_PLUGINS(PostgresAdapter, OtherPlugin)
//     defines the exported `dha_plugin_entry_v1` of a plugin .so (use it once per library);
//   DHA_DEFINE_PLUGIN_ENTRY(builtin_gates_entry, BackupWindowGate)
//     defines `const dha_plugin_entry* builtin_gates_entry(void)`, not exported, so that a
//     plugin can be linked statically into the host and registered through the same path.
//
// Every function in the tables runs inside barrier(): exceptions never cross the boundary.
// dha::sdk::Error keeps its status, any other std::exception is DHA_INTERNAL with its what(),
// anything else DHA_INTERNAL "unknown exception". Malformed input JSON is DHA_INVALID_ARGUMENT.
// Output is written to the sink only once a call has fully succeeded.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "dha/abi.h"
#include "dha/ext/actuator.h"
#include "dha/ext/engine.h"
#include "dha/ext/gate.h"
#include "dha/ext/metrics.h"
#include "dha/sdk/error.hpp"
#include "dha/sdk/host.hpp"
#include "dha/sdk/json.hpp"
#include "dha/sdk/plugin.hpp"
#include "dha/sdk/sink.hpp"

namespace dha::sdk::detail {

template <class Body>
dha_status barrier(const dha_sink& error, Body&& body) noexcept {
  try {
    body();
    return DHA_OK;
  } catch (const Error& e) {
    write_to_sink(error, e.what());
    return e.status();
  } catch (const std::exception& e) {
    write_to_sink(error, e.what());
    return DHA_INTERNAL;
  } catch (...) {
    write_to_sink(error, "unknown exception");
    return DHA_INTERNAL;
  }
}

// --- compile-time checks on a plugin class ---

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

constexpr bool valid_plugin_id(const char* id) {
  if (id == nullptr) return false;
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(id[0])) return false;
  for (const char* p = id + 1; *p != '\0'; ++p) {
    if (!lower_or_digit(*p) && *p != '.' && *p != '-') return false;
  }
  return true;
}

template <class P>
inline constexpr bool kIsEngine = std::is_base_of_v<EngineAdapter, P>;
template <class P>
inline constexpr bool kIsMetrics = std::is_base_of_v<MetricSource, P>;
template <class P>
inline constexpr bool kIsGate = std::is_base_of_v<Gate, P>;
template <class P>
inline constexpr bool kIsActuator = std::is_base_of_v<Actuator, P>;

template <class P>
constexpr std::array<const char*, 5> capability_list() {
  std::array<const char*, 5> list{};  // NULL-terminated: at most 4 capabilities
  size_t n = 0;
  if constexpr (kIsEngine<P>) list[n++] = DHA_EXT_ENGINE;
  if constexpr (kIsMetrics<P>) list[n++] = DHA_EXT_METRICS;
  if constexpr (kIsGate<P>) list[n++] = DHA_EXT_GATE;
  if constexpr (kIsActuator<P>) list[n++] = DHA_EXT_ACTUATOR;
  return list;
}

template <class P>
struct PluginTraits {
  static_assert(kIsEngine<P> || kIsMetrics<P> || kIsGate<P> || kIsActuator<P>,
                "a plugin must inherit at least one of EngineAdapter, MetricSource, Gate, Actuator");
  static_assert(std::is_constructible_v<P, const Host&, const json::Value&>,
                "a plugin needs a constructor (const dha::sdk::Host&, const dha::sdk::json::Value& config)");
  static_assert(valid_plugin_id(P::info.id), "plugin id must match [a-z0-9][a-z0-9.-]*");
  static_assert(P::info.name != nullptr && P::info.version != nullptr && P::info.vendor != nullptr &&
                    P::info.description != nullptr,
                "PluginInfo name, version, vendor and description must be set");

  static constexpr std::array<const char*, 5> capabilities = capability_list<P>();
  static constexpr dha_plugin_descriptor descriptor{
      sizeof(dha_plugin_descriptor), P::info.id,          P::info.name,         P::info.version, P::info.vendor,
      P::info.description,           capabilities.data(), P::info.config_schema};
};

// --- one live instance ---

template <class P>
struct Instance {
  dha_plugin c{};
  Host host;
  std::unique_ptr<P> plugin;
};

template <class P>
const P& plugin_of(const dha_plugin* self) {
  if (self == nullptr || self->plugin_data == nullptr) {
    throw Error(DHA_INVALID_ARGUMENT, "called with a NULL plugin instance");
  }
  return *static_cast<const Instance<P>*>(self->plugin_data)->plugin;
}

template <class T>
void write_result(const dha_sink& out, const T& value) {
  const std::string text = value.to_json();
  write_to_sink(out, text);
}

// --- capability trampolines ---

template <class P>
struct EngineTable {
  static dha_status targets(const dha_plugin* self, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] { write_to_sink(out, targets_to_json(plugin_of<P>(self).targets())); });
  }
  static dha_status topology(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse_object(to_string_view(in), "topology input");
      write_result(out, plugin.topology(ObjectView(doc)));
    });
  }
  static dha_status queries(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "queries input");
      write_result(out, plugin.queries(QueryRequest::from_json(doc)));
    });
  }
  static dha_status health(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "health input");
      write_result(out, plugin.health(HealthRequest::from_json(doc)));
    });
  }
  static constexpr dha_engine table{sizeof(dha_engine), &targets, &topology, &queries, &health};
};

// Enforces the metrics contract on the plugin's answer as well: an empty vector is NOT_FOUND and
// a non-finite value OUT_OF_RANGE, whatever the plugin returned — never a zero.
inline void check_samples(const Samples& result) {
  if (result.samples.empty()) throw Error(DHA_NOT_FOUND, "the query returned an empty vector");
  for (const auto& s : result.samples) {
    if (!std::isfinite(s.value)) {
      std::string labels;
      for (const auto& [k, v] : s.labels) labels += (labels.empty() ? "" : ",") + k + "=\"" + v + "\"";
      throw Error(DHA_OUT_OF_RANGE, "sample {" + labels + "} is not a finite number");
    }
  }
}

// The same contract for a range: some point somewhere, every value finite.
inline void check_range(const RangeResult& result) {
  bool any = false;
  for (const auto& s : result.series) {
    any = any || !s.points.empty();
    for (const auto& [t, v] : s.points) {
      if (!std::isfinite(v))
        throw Error(DHA_OUT_OF_RANGE, "a point at " + std::to_string(t) + " is not a finite number");
    }
  }
  if (!any) throw Error(DHA_NOT_FOUND, "the range query returned no points");
}

template <class P>
struct MetricsTable {
  static dha_status instant_query(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "instant_query input");
      const Samples result = plugin.instant_query(InstantQuery::from_json(doc));
      check_samples(result);
      write_result(out, result);
    });
  }
  static dha_status range_query(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "range_query input");
      const RangeResult result = plugin.range_query(RangeQuery::from_json(doc));
      check_range(result);
      write_result(out, result);
    });
  }
  static constexpr dha_metrics table{sizeof(dha_metrics), &instant_query, &range_query};
};

template <class P>
struct GateTable {
  static dha_status evaluate(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "gate input");
      write_result(out, plugin.evaluate(GateRequest::from_json(doc)));
    });
  }
  static constexpr dha_gate table{sizeof(dha_gate), &evaluate};
};

template <class P>
struct ActuatorTable {
  static dha_status plan(const dha_plugin* self, dha_str in, dha_sink out, dha_sink error) noexcept {
    return barrier(error, [&] {
      const P& plugin = plugin_of<P>(self);
      const json::Document doc = json::parse(to_string_view(in), "actuator input");
      write_result(out, plugin.plan(ActuatorRequest::from_json(doc)));
    });
  }
  static constexpr dha_actuator table{sizeof(dha_actuator), &plan};
};

template <class P>
const void* get_extension(const dha_plugin* self, const char* id) noexcept {
  if (self == nullptr || id == nullptr) return nullptr;
  const std::string_view want(id);
  if constexpr (kIsEngine<P>) {
    if (want == DHA_EXT_ENGINE) return &EngineTable<P>::table;
  }
  if constexpr (kIsMetrics<P>) {
    if (want == DHA_EXT_METRICS) return &MetricsTable<P>::table;
  }
  if constexpr (kIsGate<P>) {
    if (want == DHA_EXT_GATE) return &GateTable<P>::table;
  }
  if constexpr (kIsActuator<P>) {
    if (want == DHA_EXT_ACTUATOR) return &ActuatorTable<P>::table;
  }
  return nullptr;
}

template <class P>
void destroy(const dha_plugin* self) noexcept {
  if (self == nullptr) return;
  try {
    delete static_cast<Instance<P>*>(self->plugin_data);
  } catch (...) {
    // A destructor that throws cannot be reported through this void function; swallowing it
    // is the only way to keep the exception on this side of the boundary.
  }
}

template <class P>
const dha_plugin* create_instance(const dha_host* host, const json::Value& config) {
  auto instance = std::make_unique<Instance<P>>();
  instance->host = Host(host);
  instance->plugin = std::make_unique<P>(instance->host, config);
  instance->c =
      dha_plugin{sizeof(dha_plugin), &PluginTraits<P>::descriptor, instance.get(), &destroy<P>, &get_extension<P>};
  return &instance.release()->c;
}

template <class... Ps>
constexpr bool unique_ids() {
  const char* ids[] = {Ps::info.id...};
  for (size_t i = 0; i < sizeof...(Ps); ++i) {
    for (size_t j = i + 1; j < sizeof...(Ps); ++j) {
      if (same_text(ids[i], ids[j])) return false;
    }
  }
  return true;
}

template <class... Ps>
struct Entry {
  static_assert(sizeof...(Ps) > 0, "a plugin library holds at least one plugin");
  static_assert(unique_ids<Ps...>(), "two plugins in one library share an id");

  static constexpr std::array<const dha_plugin_descriptor*, sizeof...(Ps)> descriptors{
      &PluginTraits<Ps>::descriptor...};

  static uint32_t plugin_count() noexcept { return static_cast<uint32_t>(sizeof...(Ps)); }

  static const dha_plugin_descriptor* plugin_descriptor(uint32_t index) noexcept {
    return index < sizeof...(Ps) ? descriptors[index] : nullptr;
  }

  static dha_status create(const dha_host* host, dha_str plugin_id, dha_str config_json, const dha_plugin** out,
                           dha_sink error) noexcept {
    return barrier(error, [&] {
      if (out == nullptr) throw Error(DHA_INVALID_ARGUMENT, "create: `out` is NULL");
      *out = nullptr;
      const std::string id(to_string_view(plugin_id));
      const std::string_view text = to_string_view(config_json);
      json::Document config;
      if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        config.SetObject();  // no configuration at all reads as {}
      } else {
        config = json::parse_object(text, "configuration of plugin \"" + id + "\"");
      }
      const dha_plugin* made = nullptr;
      const bool found = ((id == Ps::info.id ? (made = create_instance<Ps>(host, config), true) : false) || ...);
      if (!found) {
        std::string known;
        ((known += (known.empty() ? "" : ", ") + std::string(Ps::info.id)), ...);
        throw Error(DHA_NOT_FOUND, "no plugin \"" + id + "\" in this library (it holds: " + known + ")");
      }
      *out = made;
    });
  }

  static constexpr dha_plugin_entry table{sizeof(dha_plugin_entry), DHA_ABI_VERSION_MAJOR,
                                          DHA_ABI_VERSION_MINOR,    &plugin_count,
                                          &plugin_descriptor,       &create};
};

}  // namespace dha::sdk::detail

// The exported entry point of a plugin shared object. Use once per library.
#define DHA_EXPORT_PLUGINS(...)                                                    \
  extern "C" DHA_PLUGIN_EXPORT const dha_plugin_entry* dha_plugin_entry_v1(void) { \
    return &::dha::sdk::detail::Entry<__VA_ARGS__>::table;                         \
  }

// A non-exported entry function with another name, for plugins linked into the host.
#define DHA_DEFINE_PLUGIN_ENTRY(fn_name, ...) \
  const dha_plugin_entry* fn_name(void) { return &::dha::sdk::detail::Entry<__VA_ARGS__>::table; }
