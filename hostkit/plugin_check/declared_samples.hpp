#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "plugin_host/plugin_instance.hpp"

// Samples made from what the plugin and its author declare, never from a fixed object shape: a
// target's count goes where the kind's CRD (--crd) says /scale reads it, else where the adapter's
// own topology answer says it lives (replicasPath); the author's own objects and gate requests
// (--samples DIR) are used as they are.
namespace dha::plugin_check {

// Where the count of `kind` lives and who says so.
struct CountPath {
  std::string path;                     // dotted, "spec.topology.nodes"
  std::string origin;                   // "the CRD's /scale", "the adapter's replicasPath", ...
  std::optional<std::string> crd_path;  // what the kind's CRD says, when one was given
};
CountPath count_path(const plugin_host::PluginInstance& p, const sdk::TargetKind& kind, const Options& options);

// A target object and the count it holds at the count path (nullopt: none).
struct TargetSample {
  std::string object;
  std::optional<int64_t> count;
  std::string origin;  // "a generated KeyDB", "samples/orders.yaml"
};
// A generated object with the count 3 at the path, one without a count, then the author's
// objects of this kind.
std::vector<TargetSample> target_samples(const sdk::TargetKind& kind, const CountPath& path, const Options& options);

// A generated object of `kind` with the count 3 at its count path: what the other checks send.
std::string declared_target(const plugin_host::PluginInstance& p, const sdk::TargetKind& kind, const Options& options);

// A generated object of `kind` with `count` at the dotted `path` (nothing there when nullopt).
std::string object_with_count(const sdk::TargetKind& kind, const std::string& path, std::optional<int64_t> count);

// The author's gate requests: {"expect": "hold"|"pass", "request": {...}} documents in --samples.
struct GateSample {
  std::string request;
  bool expect_hold = false;
  std::string origin;
};
std::vector<GateSample> author_gate_samples(const Options& options);

// The /scale specReplicasPath the --crd files give for `kind` (without the leading '.').
std::optional<std::string> crd_scale_path(const Options& options, const sdk::TargetKind& kind);

}  // namespace dha::plugin_check
