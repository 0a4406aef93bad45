#pragma once

// Test kit: everything a pipeline test stands on, started in one line — the embedded API server
// serving your CRDs (plus the kit's: DHA, WorkloadMonitor, the cozystack kinds), a real
// VictoriaMetrics, the operator's Pipeline with your plugins and metrics-vm pointed at that
// VictoriaMetrics, and the namespace your objects live in. Stopped in reverse order on
// destruction (the temporary kubeconfig directory goes with it).
//
//   dha::testing::PipelineWorldOptions options;
//   options.crd_dirs = {ACMEDB_CRD_DIR};
//   options.plugin_dirs = {ACMEDB_PLUGIN_DIR};
//   options.plugins = {"acmedb"};
//   dha::testing::PipelineWorld world(options);
//   world.create_healthy_target({.object = {"db.example.com", "v1", "acmedbs", "tenant-a", "orders"},
//                                .kind = "AcmeDB", .replicas = 3,
//                                .monitor = "acmedb-orders", .monitor_kind = "acmedb"});
//   world.vm().import_prometheus("...");
//   world.create_dha("orders", R"({"targetRef": {...}, "minReplicas": 2, ...})");
//   world.pipeline().reconcile("tenant-a", "orders");
//
// Link dha::testing::kit, dha::testing::apiserver and dha::testing::vm.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"
#include "dha/testing/pipeline.hpp"
#include "dha/testing/victoria_metrics.hpp"

#ifndef DHA_SDK_CRD_DIR
#error "PipelineWorld needs DHA_SDK_CRD_DIR (set by find_package(dha-sdk); in-tree: the kit's crds folder)"
#endif

namespace dha::testing {

struct PipelineWorldOptions {
  std::vector<std::string> crd_dirs;     // your kinds; the kit's CRDs are always served
  std::vector<std::string> plugin_dirs;  // where your .so files are
  std::vector<std::string> plugins;      // yours; "metrics-vm" is added
  // Configuration of your plugins by id, JSON object text: {{"acmedb", R"({"minQuorum": 2})"}}.
  std::map<std::string, std::string> plugin_config;
  std::string namespace_name = "tenant-a";
  std::int64_t start_unix_seconds = 0;      // the pipeline clock's start; 0 = the current second
  bool requeue_at_namespace_phase = false;  // Pipeline::requeue_at_namespace_phase (SDK 1.2)
};

// The object a DHA scales, as most pipeline tests start from it: `kind` at `object` with
// spec.replicas `replicas`, and the cozystack WorkloadMonitor `monitor` (spec.kind
// `monitor_kind`) reporting it operational with every replica available.
struct HealthyTarget {
  ObjectRef object;  // {"db.example.com", "v1", "acmedbs", "tenant-a", "orders"}
  std::string kind;  // "AcmeDB"
  std::int64_t replicas = 3;
  std::string monitor;                  // "acmedb-orders"
  std::string monitor_kind;             // "acmedb"
  std::string annotations_json = "{}";  // the object's metadata.annotations
};

class PipelineWorld {
 public:
  explicit PipelineWorld(const PipelineWorldOptions& o)
      : dir_(make_temp_dir("dha-pipeline-world")), namespace_(o.namespace_name) {
    ApiServerOptions api_options;
    api_options.crd_dirs = {DHA_SDK_CRD_DIR};
    api_options.crd_dirs.insert(api_options.crd_dirs.end(), o.crd_dirs.begin(), o.crd_dirs.end());
    api_ = std::make_unique<ApiServer>(api_options);
    api_->start();
    const std::string kubeconfig = dir_ + "/kubeconfig";
    api_->write_kubeconfig(kubeconfig);
    vm_ = std::make_unique<VictoriaMetrics>();

    PipelineOptions options;
    options.kubeconfig = kubeconfig;
    options.plugin_dirs = o.plugin_dirs;
    options.plugins = o.plugins;
    options.plugins.push_back("metrics-vm");
    options.start_unix_seconds = o.start_unix_seconds;
    std::string config = R"({"metrics-vm": {"url": ")" + vm_->url() + R"("})";
    for (const auto& [id, json] : o.plugin_config) config += ", \"" + id + "\": " + json;
    options.plugin_config_json = config + "}";
    pipeline_ = std::make_unique<Pipeline>(options);
    if (o.requeue_at_namespace_phase) pipeline_->requeue_at_namespace_phase(true);
    pipeline_->create(
        {"", "v1", "namespaces", "", ""},
        R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ")" + o.namespace_name + R"("}})");
  }
  ~PipelineWorld() {
    pipeline_.reset();
    vm_.reset();
    api_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PipelineWorld(const PipelineWorld&) = delete;
  PipelineWorld& operator=(const PipelineWorld&) = delete;

  void create_healthy_target(const HealthyTarget& t) {
    const ObjectRef& o = t.object;
    const std::string api_version = o.group.empty() ? o.version : o.group + "/" + o.version;
    pipeline_->create({o.group, o.version, o.plural, o.namespace_name, ""},
                      R"({"apiVersion": ")" + api_version + R"(", "kind": ")" + t.kind +
                          R"(", "metadata": {"name": ")" + o.name + R"(", "namespace": ")" + o.namespace_name +
                          R"(", "annotations": )" + t.annotations_json + R"(}, "spec": {"replicas": )" +
                          std::to_string(t.replicas) + "}}");
    const ObjectRef monitor{"cozystack.io", "v1alpha1", "workloadmonitors", o.namespace_name, t.monitor};
    pipeline_->create({monitor.group, monitor.version, monitor.plural, o.namespace_name, ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor", "metadata": {"name": ")" +
                          t.monitor + R"(", "namespace": ")" + o.namespace_name + R"("}, "spec": {"kind": ")" +
                          t.monitor_kind + R"("}})");
    pipeline_->patch_status(
        monitor, R"({"status": {"operational": true, "availableReplicas": )" + std::to_string(t.replicas) + "}}");
  }
  // A DatabaseHorizontalAutoscaler `name` in the world's namespace; `spec_json` is its spec.
  void create_dha(const std::string& name, std::string_view spec_json) {
    pipeline_->create({"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", namespace_, ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": ")" +
                          name + R"(", "namespace": ")" + namespace_ + R"("}, "spec": )" + std::string(spec_json) +
                          "}");
  }

  ApiServer& api() { return *api_; }
  VictoriaMetrics& vm() { return *vm_; }
  Pipeline& pipeline() { return *pipeline_; }

 private:
  std::string dir_;
  std::string namespace_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<VictoriaMetrics> vm_;
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace dha::testing
