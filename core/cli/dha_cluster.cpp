#include "dha_cluster.hpp"

#include "dha/kube/config.hpp"
#include "dha/kube/errors.hpp"
#include "dha/kube/resource.hpp"
#include "exit.hpp"

namespace dha::cli {

DhaCluster connect(const DhaOptions& o) {
  kube::ConfigFlags flags;
  flags.kubeconfig = o.kubeconfig;
  flags.context = o.context;
  if (!o.namespace_name.empty()) flags.namespace_ = o.namespace_name;
  kube::Config config = kube::Config::load(flags);
  DhaCluster cluster;
  cluster.namespace_name = o.namespace_name.empty() ? config.default_namespace : o.namespace_name;
  cluster.client = std::make_unique<kube::Client>(std::move(config));
  return cluster;
}

rapidjson::Document read_dha(DhaCluster& cluster, const std::string& name) {
  const std::string& ns = cluster.namespace_name;
  try {
    return cluster.client->get(kube::resources::dhas(ns).named(name));
  } catch (const kube::ApiError& e) {
    if (e.http_status() == 404)
      throw Exit(kExitFailure, "DatabaseHorizontalAutoscaler " + ns + "/" + name + " not found");
    throw Exit(kExitFailure, "cannot read DatabaseHorizontalAutoscaler " + ns + "/" + name + ": " + e.what());
  }
}

}  // namespace dha::cli
