#pragma once

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

#include "dha/kube/object_reader.hpp"
#include "host/plugin_set.hpp"

// What a tool reads instead of a cluster: the objects it was given (a target from a file, or the
// target's identity alone); anything else does not exist, as a namespace without labels and
// without quotas. Observing through it reads what the operator would read for such a cluster.
namespace dha::cli {

class GivenObjects final : public kube::ObjectReader {
 public:
  void add(const kube::ResourceRef& ref, rapidjson::Document object);
  kube::ObjectPtr get(const kube::ResourceRef& ref) const override;
  std::vector<kube::ObjectPtr> list(const kube::ResourceRef&) const override { return {}; }

 private:
  std::map<std::string, kube::ObjectPtr> objects_;
};

// A target object with its identity alone (apiVersion, kind, name, namespace, an empty spec): all
// a release name depends on; everything read from the spec is then the adapter's default.
rapidjson::Document identity_object(const op::EngineBinding& engine, const std::string& ns, const std::string& name);

}  // namespace dha::cli
