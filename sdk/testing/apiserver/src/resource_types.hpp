#pragma once
// What the server serves: built-in kinds and the kinds CRDs register, with their names,
// scope, subresources, printer columns and (for CRDs) compiled schemas per version.

#include "schema.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct PrinterColumn {
  std::string name, type, json_path, description, format;
  int priority = 0;
};

struct ScaleSubresource {
  std::string spec_replicas_path, status_replicas_path, label_selector_path;  // ".spec.replicas"
};

struct ResourceVersionInfo {
  std::string name;                           // v1alpha1
  std::shared_ptr<const SchemaNode> schema;   // null for built-ins
  std::shared_ptr<const JsonDoc> raw_schema;  // the CRD's openAPIV3Schema, for /openapi/v3
  std::vector<PrinterColumn> columns;         // after NAME
  bool has_status = false;
  std::optional<ScaleSubresource> scale;
};

struct ResourceType {
  std::string group;                          // "" = core
  std::vector<ResourceVersionInfo> versions;  // served; the first is the preferred one
  std::string kind, list_kind, plural, singular;
  std::vector<std::string> short_names, categories;
  bool namespaced = true;
  bool is_crd = false;
  bool create_only = false;      // TokenReview/SubjectAccessReview: POST answers, nothing stored
  int name_column_priority = 0;  // 1 hides NAME unless -o wide (Events, as in kube)
  // Field selectors the kind accepts besides metadata.name/metadata.namespace; any other
  // label is a 400. `own_field_labels` means the kind names its labels itself and so words the
  // refusal "field label not supported" (core Event, Namespace, Secret, custom resources);
  // kinds without their own list answer "is not a known field selector".
  std::vector<std::string> field_labels;
  bool own_field_labels = false;
  // A DELETE that removes the object at once answers with the object instead of a Status
  // (kube does so for ServiceAccounts and ResourceQuotas; Namespaces and CRDs always go through
  // finalizers there).
  bool delete_returns_object = false;

  std::string key() const { return group + "/" + plural; }
  std::string resource_with_group() const { return group.empty() ? plural : plural + "." + group; }
  std::string kind_with_group() const { return group.empty() ? kind : kind + "." + group; }
  const ResourceVersionInfo* version(const std::string& name) const;
};

// The built-in kinds the operator touches (core, coordination, events, admissionregistration,
// apiextensions, authentication, authorization).
std::vector<std::shared_ptr<const ResourceType>> builtin_types();

// Turns an apiextensions.k8s.io/v1 CustomResourceDefinition into a ResourceType.
// Throws ApiError 422 (Invalid, with causes) for CRDs the real server or the kit would reject.
std::shared_ptr<const ResourceType> type_from_crd(const Json& crd);

}  // namespace dha::testing::apiserver
