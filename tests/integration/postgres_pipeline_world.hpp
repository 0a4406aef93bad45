#pragma once

// What the Postgres pipeline tests (metric_values, status_fields, replicas_precondition,
// unrecorded_patch, predictive) stand on, built from the kit's PipelineWorld: the world with the
// in-tree postgres.so, Postgres tenant-a/db with its WorkloadMonitor, and the exporter lines of
// its one read replica db-2.

#include <cstdint>
#include <memory>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace dha::integration {

inline const dha::testing::ObjectRef kPostgresDb{"apps.cozystack.io", "v1alpha1", "postgreses", "tenant-a", "db"};

inline std::unique_ptr<dha::testing::PipelineWorld> postgres_pipeline_world(bool requeue_at_namespace_phase = false) {
  dha::testing::PipelineWorldOptions options;
  options.requeue_at_namespace_phase = requeue_at_namespace_phase;
  options.crd_dirs = {DHA_SOURCE_DIR "/charts/db-autoscaler/crds"};
  options.plugin_dirs = {POSTGRES_PLUGIN_DIR};
  options.plugins = {"postgres"};
  return std::make_unique<dha::testing::PipelineWorld>(options);
}

// Postgres db with `replicas`, healthy; `annotations_json` is its metadata.annotations.
inline dha::testing::HealthyTarget healthy_postgres(std::int64_t replicas, std::string annotations_json = "{}") {
  return {.object = kPostgresDb,
          .kind = "Postgres",
          .replicas = replicas,
          .monitor = "postgres-db",
          .monitor_kind = "postgres",
          .annotations_json = std::move(annotations_json)};
}

// `active` connections on read replica db-2 at `millis`, in exposition format: the backends
// gauge and the pod labels that make db-2 a replica of db.
inline std::string replica_connections(const std::string& active, std::int64_t millis) {
  const std::string t = std::to_string(millis);
  return R"(cnpg_backends_total{namespace="tenant-a",pod="db-2",state="active"} )" + active + " " + t + "\n" +
         R"(kube_pod_labels{namespace="tenant-a",pod="db-2",label_apps_cozystack_io_application_name="db",)"
         R"(label_apps_cozystack_io_application_kind="Postgres",label_cnpg_io_instance_role="replica"} 1 )" +
         t + "\n";
}

}  // namespace dha::integration
