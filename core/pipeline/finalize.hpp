#pragma once

#include <rapidjson/document.h>

#include "dha/kube/client.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/act.hpp"

// FINALIZE: a DHA is being deleted, so its target is handed back — the actuator's release
// (the managed-by marker cleared) through the same target resolution a reconcile uses. Best
// effort: the DHA's deletion never waits on a target that is gone or unreadable.
namespace dha::pipeline {

class Finalize {
 public:
  Finalize(kube::Client& client, const op::PluginSet& plugins, op::SelfMetrics& metrics, const Act& act)
      : client_(client), plugins_(plugins), metrics_(metrics), act_(act) {}

  void release_target(const rapidjson::Value& dha) const;

 private:
  kube::Client& client_;
  const op::PluginSet& plugins_;
  op::SelfMetrics& metrics_;
  const Act& act_;
};

}  // namespace dha::pipeline
