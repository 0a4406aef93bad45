#pragma once

#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/resource.hpp"

// How the observe stage reads the objects around a target (the target, its health object, its
// namespace, the namespace's ResourceQuotas). The operator answers from its informer caches; a
// command-line tool answers with GETs, or from the files it was given. Observing through this one
// interface is what lets a tool see what the operator sees.
namespace dha::kube {

class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // The object, or nullptr when it does not exist; API errors propagate.
  virtual ObjectPtr get(const ResourceRef& ref) const = 0;
  // Every object of `collection` in collection.namespace_ (which must be set).
  virtual std::vector<ObjectPtr> list(const ResourceRef& collection) const = 0;
};

// Every read a GET or LIST of the API server, as a tool that runs once makes them.
class ClientReader final : public ObjectReader {
 public:
  explicit ClientReader(Client& client) : client_(client) {}
  ObjectPtr get(const ResourceRef& ref) const override;
  std::vector<ObjectPtr> list(const ResourceRef& collection) const override;

 private:
  Client& client_;
};

}  // namespace dha::kube
