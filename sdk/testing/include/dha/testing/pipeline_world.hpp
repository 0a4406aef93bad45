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
//   world.vm().import_prometheus("...");
//   world.pipeline().create(...);
//   world.pipeline().reconcile("tenant-a", "orders");
//
// Link dha::testing::kit, dha::testing::apiserver and dha::testing::vm.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
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
};

class PipelineWorld {
 public:
  explicit PipelineWorld(const PipelineWorldOptions& o) : dir_(make_temp_dir("dha-pipeline-world")) {
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
    std::string config = R"({"metrics-vm": {"url": ")" + vm_->url() + R"("})";
    for (const auto& [id, json] : o.plugin_config) config += ", \"" + id + "\": " + json;
    options.plugin_config_json = config + "}";
    pipeline_ = std::make_unique<Pipeline>(options);
    pipeline_->create({"", "v1", "namespaces", "", ""},
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

  ApiServer& api() { return *api_; }
  VictoriaMetrics& vm() { return *vm_; }
  Pipeline& pipeline() { return *pipeline_; }

 private:
  std::string dir_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<VictoriaMetrics> vm_;
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace dha::testing
