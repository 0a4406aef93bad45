#include "checks.hpp"

#include <algorithm>
#include <memory>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "capability_checks.hpp"
#include "declared_samples.hpp"
#include "dha/sdk/sdk.hpp"
#include "plugin_calls.hpp"
#include "plugin_config.hpp"
#include "plugin_host/load_error.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "plugin_host/status_text.hpp"
#include "samples.hpp"
#include "tenancy/query_template.hpp"

namespace dha::plugin_check {

namespace {

using plugin_host::CallResult;
using plugin_host::PluginInstance;
using plugin_host::PluginRegistry;

CheckOutcome check_handshake(const Options& options) {
  PluginRegistry registry;
  registry.load_file(options.file);
  const auto& plugins = registry.plugins();
  return {true,
          fmt::format("{} plugin(s), ABI {}.{}", plugins.size(), plugins.front().abi_major, plugins.front().abi_minor)};
}

CheckOutcome check_descriptors(const Options& options) {
  PluginRegistry registry;
  registry.load_file(options.file);
  static const std::regex semver(R"(\d+\.\d+\.\d+([-+].*)?)");
  static const std::set<std::string> known{DHA_EXT_ENGINE, DHA_EXT_METRICS, DHA_EXT_GATE, DHA_EXT_ACTUATOR};
  static const std::set<std::string> types{"string", "integer", "number", "boolean", "object", "array"};
  for (const auto& info : registry.plugins()) {
    if (info.name.empty() || info.vendor.empty() || info.description.empty()) {
      fail("plugin \"{}\": name, vendor and description must not be empty", info.id);
    }
    if (!std::regex_match(info.version, semver))
      fail("plugin \"{}\": version \"{}\" is not semantic (x.y.z)", info.id, info.version);
    if (info.capabilities.empty()) fail("plugin \"{}\": declares no capability", info.id);
    for (const auto& cap : info.capabilities) {
      if (!known.contains(cap)) fail("plugin \"{}\": unknown capability \"{}\" (typo?)", info.id, cap);
    }
    if (info.config_schema.empty()) continue;
    sdk::json::Document schema;
    schema.Parse(info.config_schema.c_str());
    if (!schema.HasMember("keys") || !schema["keys"].IsArray())
      fail("plugin \"{}\": config_schema has no \"keys\" array", info.id);
    for (const auto& key : schema["keys"].GetArray()) {
      const std::string name = key.HasMember("name") && key["name"].IsString() ? key["name"].GetString() : "";
      const std::string type = key.HasMember("type") && key["type"].IsString() ? key["type"].GetString() : "";
      if (name.empty()) fail("plugin \"{}\": a config key has no name", info.id);
      if (!types.contains(type)) fail("plugin \"{}\": config key \"{}\" has unknown type \"{}\"", info.id, name, type);
      if (!key.HasMember("description") || !key["description"].IsString() ||
          key["description"].GetStringLength() == 0) {
        fail("plugin \"{}\": config key \"{}\" has no description (operators read it in `plugin inspect`)", info.id,
             name);
      }
    }
  }
  return {true, fmt::format("{} descriptor(s)", registry.plugins().size())};
}

CheckOutcome check_create(const Options& options) {
  PluginRegistry registry;
  registry.load_file(options.file);
  for (const auto& info : registry.plugins()) {
    std::unique_ptr<PluginInstance> instance;
    try {
      instance = registry.create(info.id, config_for(options, info, options.metrics_url));
    } catch (const plugin_host::PluginError& e) {
      const std::string message = e.what();
      if (message.ends_with(": no message")) fail("plugin \"{}\": refused to start without saying why", info.id);
      fail("{}", message);
    }
    for (const auto& cap : info.capabilities) {
      const bool offered =
          (cap == DHA_EXT_ENGINE && instance->engine()) || (cap == DHA_EXT_METRICS && instance->metrics()) ||
          (cap == DHA_EXT_GATE && instance->gate()) || (cap == DHA_EXT_ACTUATOR && instance->actuator());
      if (!offered) fail("plugin \"{}\": declares {} but get_extension does not return a usable table", info.id, cap);
    }
  }
  for (const auto& entry : options.config_by_id) {
    const std::string& id = entry.first;
    const auto& plugins = registry.plugins();
    if (std::none_of(plugins.begin(), plugins.end(), [&](const auto& info) { return info.id == id; }))
      fail("a configuration is given for \"{}\", which is not a plugin of {}", id, options.file);
  }
  return {true, "every plugin created and offers what it declares"};
}

CheckOutcome check_engine_targets(const Options& options) {
  return for_each_instance(options, DHA_EXT_ENGINE, [](const PluginInstance& p) {
    const auto targets = targets_of(p);
    if (targets.empty()) fail("plugin \"{}\": handles no target kind", p.info().id);
    for (const auto& t : targets) {
      if (t.api_group.empty() || t.version.empty() || t.kind.empty() || t.plural.empty() || t.actuator.empty()) {
        fail("plugin \"{}\": target {}/{} has an empty apiGroup, version, kind, plural or actuator", p.info().id,
             t.api_group, t.kind);
      }
    }
  });
}

CheckOutcome check_engine_topology(const Options& options) {
  return for_each_instance(options, DHA_EXT_ENGINE, [&](const PluginInstance& p) {
    std::string note;
    for (const auto& kind : targets_of(p)) {
      const CountPath path = count_path(p, kind, options);
      int samples = 0;
      for (const auto& sample : target_samples(kind, path, options)) {
        ++samples;
        if (!sample.count) {
          // A count-less object: null, or a refusal that says why — never a made-up number.
          const CallResult bare = checked(p, p.call(p.engine()->topology, sample.object), "topology");
          if (bare.ok()) {
            auto doc = parse_or_fail(p, bare.output, "topology");
            const auto missing = sdk::Topology::from_json(doc);
            if (missing.current_replicas.has_value())
              fail("plugin \"{}\": {}: {} has nothing at {} ({}), yet currentReplicas is {}, not null", p.info().id,
                   kind.kind, sample.origin, path.path, path.origin, *missing.current_replicas);
          } else if (bare.error.empty()) {
            fail("plugin \"{}\": {}: refused {} but gave no message", p.info().id, kind.kind, sample.origin);
          }
          continue;
        }
        const auto t = topology_of(p, sample.object);
        if (t.quorum_floor < 1)
          fail("plugin \"{}\": {}: quorumFloor {} is below 1", p.info().id, kind.kind, t.quorum_floor);
        if (t.primary_count < 0) fail("plugin \"{}\": {}: negative primaryCount", p.info().id, kind.kind);
        if (t.replicas_path.empty()) fail("plugin \"{}\": {}: empty replicasPath", p.info().id, kind.kind);
        if (path.crd_path && t.replicas_path != *path.crd_path)
          fail(
              "plugin \"{}\": {}: replicasPath is {}, but the CRD's /scale keeps the count at {}: the actuator would "
              "change a field the count is not read from",
              p.info().id, kind.kind, t.replicas_path, *path.crd_path);
        if (t.current_replicas != sample.count)
          fail("plugin \"{}\": {}: read currentReplicas {} from {} whose {} is {} (the count's path from {})",
               p.info().id, kind.kind, t.current_replicas ? std::to_string(*t.current_replicas) : "null", sample.origin,
               path.path, *sample.count, path.origin);
      }
      note += fmt::format("{}{}: {} sample(s), count at {} ({})", note.empty() ? "" : "; ", kind.kind, samples,
                          path.path, path.origin);
    }
    return note;
  });
}

CheckOutcome check_engine_queries(const Options& options) {
  return for_each_instance(options, DHA_EXT_ENGINE, [&](const PluginInstance& p) {
    for (const auto& kind : targets_of(p)) {
      const auto topology = topology_of(p, declared_target(p, kind, options));
      const sdk::QueryRequest request = sample_query_request(kind, kHostileName, topology.release_name);
      const CallResult r = checked(p, p.call(p.engine()->queries, request.to_json()), "queries");
      if (!r.ok())
        fail("plugin \"{}\": queries failed with {}: {}", p.info().id, plugin_host::status_text(r.status), r.error);
      auto doc = parse_or_fail(p, r.output, "queries");
      sdk::Queries queries;
      try {
        queries = sdk::Queries::from_json(doc);
      } catch (const std::exception& e) {
        fail("plugin \"{}\": queries: {}", p.info().id, e.what());
      }
      if (queries.driver.empty())
        fail("plugin \"{}\": {}: supports neither ReadConnections nor ReadCPUUtilization", p.info().id, kind.kind);
      std::vector<std::pair<std::string, std::string>> all(queries.driver.begin(), queries.driver.end());
      if (!queries.lag_query.empty()) all.emplace_back("lag", queries.lag_query);
      if (!queries.write_activity.empty()) all.emplace_back("writeActivity", queries.write_activity);
      if (!queries.ready_estimate.empty()) all.emplace_back("readyEstimate", queries.ready_estimate);
      if (const auto& g = queries.grouped) {
        for (const auto& [type, query] : g->driver) all.emplace_back("grouped " + type, query);
        if (!g->lag_query.empty()) all.emplace_back("grouped lag", g->lag_query);
        if (!g->write_activity.empty()) all.emplace_back("grouped writeActivity", g->write_activity);
        if (!queries.grouped_ready_estimate.empty())
          all.emplace_back("grouped readyEstimate", queries.grouped_ready_estimate);
        for (const auto& [which, query] : all)
          if (which.starts_with("grouped ") && !tenancy::is_namespace_wide(query))
            fail("plugin \"{}\": {} query {} names one target (${{name}} or ${{release}}): it cannot answer for all",
                 p.info().id, kind.kind, which);
      }
      const tenancy::TargetLabels labels{kNamespace, kHostileName, topology.release_name};
      for (const auto& [which, query] : all) {
        const auto scoped = tenancy::render_scoped_query(query, labels);
        if (!scoped.ok())
          fail("plugin \"{}\": {} query {} would be refused by the host: {}", p.info().id, kind.kind, which,
               scoped.refusal);
      }
    }
  });
}

CheckOutcome check_engine_health(const Options& options) {
  return for_each_instance(options, DHA_EXT_ENGINE, [&](const PluginInstance& p) {
    for (const auto& kind : targets_of(p)) {
      const std::string target = declared_target(p, kind, options);
      const auto topology = topology_of(p, target);
      if (!topology.scalable) continue;  // health is never asked for a target the adapter refuses
      // An object with no status does not tell health: the adapter must say so (the host then
      // freezes with HealthUnknown) rather than report "operational".
      const CallResult r = checked(p, p.call(p.engine()->health, sample_health_request(target, topology)), "health");
      if (r.ok())
        fail("plugin \"{}\": {}: reported health from an object without status: {}", p.info().id, kind.kind, r.output);
      if (r.error.empty())
        fail("plugin \"{}\": {}: refused a status-less health object without a message", p.info().id, kind.kind);
    }
  });
}

// Every function that reads a document refuses garbage with a status and a message.
CheckOutcome check_malformed_input(const Options& options) {
  auto loaded = load_all(options);
  const std::vector<std::string>& garbage = malformed_inputs();
  int calls = 0;
  for (const auto& p : loaded->instances) {
    std::vector<std::pair<const char*, dha_status (*)(const dha_plugin*, dha_str, dha_sink, dha_sink)>> fns;
    if (p->engine()) {
      fns = {{"topology", p->engine()->topology}, {"queries", p->engine()->queries}, {"health", p->engine()->health}};
    }
    if (p->metrics()) fns.emplace_back("instant_query", p->metrics()->instant_query);
    if (p->gate()) fns.emplace_back("evaluate", p->gate()->evaluate);
    if (p->actuator()) fns.emplace_back("plan", p->actuator()->plan);
    for (const auto& [name, fn] : fns) {
      for (const auto& input : garbage) {
        const CallResult r = checked(*p, p->call(fn, input), name);
        ++calls;
        if (r.ok())
          fail("plugin \"{}\": {} accepted malformed input '{}' and returned: {}", p->info().id, name, input, r.output);
        if (r.error.empty()) fail("plugin \"{}\": {} refused '{}' without a message", p->info().id, name, input);
      }
    }
  }
  return {true, fmt::format("{} malformed calls refused with a message", calls)};
}

// The sample calls of the engine, gate and actuator checks, as (function, input) pairs.
std::vector<std::pair<std::string, CallResult>> sample_calls(const PluginInstance& p, const Options& options) {
  std::vector<std::pair<std::string, CallResult>> out;
  if (p.engine()) {
    out.emplace_back("targets", p.call(p.engine()->targets));
    for (const auto& kind : targets_of(p)) {
      const std::string target = declared_target(p, kind, options);
      out.emplace_back("topology", p.call(p.engine()->topology, target));
      out.emplace_back("queries", p.call(p.engine()->queries, sample_query_request(kind, "db", "db").to_json()));
    }
  }
  if (p.gate()) out.emplace_back("evaluate", p.call(p.gate()->evaluate, sample_gate_request()));
  if (p.actuator()) out.emplace_back("plan", p.call(p.actuator()->plan, sample_plan_request()));
  for (const auto& [name, result] : out) checked(p, result, name);
  return out;
}

CheckOutcome check_gate(const Options& options) {
  return for_each_instance(options, DHA_EXT_GATE, [&](const PluginInstance& p) {
    for (const auto& [name, r] : sample_calls(p, options)) {
      if (name != "evaluate") continue;
      if (!r.ok())
        fail("plugin \"{}\": evaluate failed with {}: {}", p.info().id, plugin_host::status_text(r.status), r.error);
      auto doc = parse_or_fail(p, r.output, "evaluate");
      const std::string verdict =
          doc.IsObject() && doc.HasMember("verdict") && doc["verdict"].IsString() ? doc["verdict"].GetString() : "";
      if (verdict == "clamp") {
        if (!doc.HasMember("replicas") || !doc["replicas"].IsInt64())
          fail("plugin \"{}\": a clamp needs an integer \"replicas\"", p.info().id);
        const int64_t to = doc["replicas"].GetInt64();
        if (to < 3 || to > 4)
          fail("plugin \"{}\": clamped 3 -> 4 to {}, which is not between current and proposal", p.info().id, to);
      } else if (verdict != "pass" && verdict != "freeze") {
        fail("plugin \"{}\": verdict must be pass, clamp or freeze, got: {}", p.info().id, r.output);
      }
      if (verdict != "pass" &&
          (!doc.HasMember("reason") || !doc["reason"].IsString() || doc["reason"].GetStringLength() == 0)) {
        fail("plugin \"{}\": a {} must carry a reason", p.info().id, verdict);
      }
    }
  });
}

CheckOutcome check_actuator(const Options& options) {
  return for_each_instance(options, DHA_EXT_ACTUATOR, [&](const PluginInstance& p) {
    for (const auto& [name, r] : sample_calls(p, options)) {
      if (name != "plan") continue;
      if (!r.ok())
        fail("plugin \"{}\": plan failed with {}: {}", p.info().id, plugin_host::status_text(r.status), r.error);
      auto doc = parse_or_fail(p, r.output, "plan");
      try {
        const auto plan = sdk::ActuatorPlan::from_json(doc);
        if (plan.requests.empty()) fail("plugin \"{}\": planned nothing for a 3 -> 4 scale", p.info().id);
      } catch (const Failure&) {
        throw;
      } catch (const std::exception& e) {
        fail("plugin \"{}\": plan: {}", p.info().id, e.what());
      }
    }
  });
}

CheckOutcome check_deterministic(const Options& options) {
  auto loaded = load_all(options);
  for (const auto& p : loaded->instances) {
    const auto first = sample_calls(*p, options);
    const auto second = sample_calls(*p, options);
    for (size_t i = 0; i < first.size(); ++i) {
      if (first[i].second.output != second[i].second.output || first[i].second.status != second[i].second.status) {
        fail("plugin \"{}\": {} returned different results for the same input:\n  {}\n  {}", p->info().id,
             first[i].first, first[i].second.output, second[i].second.output);
      }
    }
  }
  return {true, "same input, same output"};
}

CheckOutcome check_repeated_calls(const Options& options) {
  auto loaded = load_all(options);
  long calls = 0;
  for (int i = 0; i < options.iterations; ++i) {
    for (const auto& p : loaded->instances) calls += static_cast<long>(sample_calls(*p, options).size());
  }
  return {true, fmt::format("{} calls; run under valgrind --leak-check=full or an ASan build to catch leaks", calls)};
}

}  // namespace

bool offers_metrics(const Options& options, std::chrono::seconds timeout) {
  return run_isolated(
             [&] {
               PluginRegistry registry;
               registry.load_file(options.file);
               for (const auto& info : registry.plugins())
                 if (info.has_capability(DHA_EXT_METRICS)) return CheckOutcome{true, ""};
               return CheckOutcome{false, ""};
             },
             timeout)
      .passed;
}

const std::vector<Check>& all_checks() {
  static const std::vector<Check> checks{
      {"handshake", "the library loads: entry symbol, ABI versions, struct sizes, ids", check_handshake},
      {"descriptor", "names, semantic version, known capabilities, documented config keys", check_descriptors},
      {"create", "every plugin starts with the given (or default) configuration and offers what it declares",
       check_create},
      {"engine.targets", "target kinds are complete", check_engine_targets},
      {"engine.topology",
       "the count is read where the CRD's /scale (--crd) or the adapter's replicasPath keeps it, from generated and "
       "--samples objects; a missing count is null, never 0",
       check_engine_topology},
      {"engine.queries", "every query passes the host's namespace scoping, with a hostile target name",
       check_engine_queries},
      {"engine.health", "an object without status does not pass as healthy", check_engine_health},
      {"gate.evaluate", "a verdict is pass, freeze or a clamp toward current, with a reason", check_gate},
      {"gate.holds",
       "the gate holds some requests and passes others (a sweep over a day, up and down, quiet and busy, and the "
       "--samples gate requests with their expected outcome)",
       check_gate_holds},
      {"actuator.plan", "a scale produces well-formed requests", check_actuator},
      {"metrics.instant",
       "instant queries against a real VictoriaMetrics (or --metrics-url) give the tenant's samples, and only its",
       check_metrics_instant},
      {"metrics.range", "range queries give the tenant's points in increasing time over the asked range",
       check_metrics_range},
      {"metrics.errors",
       "a refused query, an empty answer and an unreachable store are the typed statuses of ext/metrics.h, with a "
       "message",
       check_metrics_errors},
      {"malformed-input", "garbage input is refused with a status and a message, never accepted",
       check_malformed_input},
      {"deterministic", "the same input gives the same output", check_deterministic},
      {"repeated-calls", "many calls in a row succeed (run under valgrind/ASan for leaks)", check_repeated_calls},
  };
  return checks;
}

}  // namespace dha::plugin_check
