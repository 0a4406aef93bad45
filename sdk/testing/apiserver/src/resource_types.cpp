#include "resource_types.hpp"

namespace dha::testing::apiserver {

const ResourceVersionInfo* ResourceType::version(const std::string& name) const {
  for (const auto& v : versions)
    if (v.name == name) return &v;
  return nullptr;
}

namespace {

std::shared_ptr<ResourceType> make(std::string group, std::string version, std::string kind, std::string plural,
                                   bool namespaced, std::vector<std::string> short_names = {},
                                   std::vector<PrinterColumn> columns = {}, bool has_status = false) {
  auto t = std::make_shared<ResourceType>();
  t->group = std::move(group);
  ResourceVersionInfo v;
  v.name = std::move(version);
  if (columns.empty()) columns.push_back({"Age", "date", ".metadata.creationTimestamp", "", "", 0});
  v.columns = std::move(columns);
  v.has_status = has_status;
  t->versions.push_back(std::move(v));
  t->kind = kind;
  t->list_kind = kind + "List";
  t->plural = std::move(plural);
  t->singular.resize(kind.size());
  for (std::size_t i = 0; i < kind.size(); ++i) t->singular[i] = static_cast<char>(std::tolower(kind[i]));
  t->short_names = std::move(short_names);
  t->namespaced = namespaced;
  return t;
}

const PrinterColumn kAge{"Age", "date", ".metadata.creationTimestamp", "", "", 0};

}  // namespace

std::vector<std::shared_ptr<const ResourceType>> builtin_types() {
  std::vector<std::shared_ptr<const ResourceType>> out;
  auto ns = make("", "v1", "Namespace", "namespaces", false, {"ns"},
                 {{"Status", "string", ".status.phase", "", "", 0}, kAge}, true);
  ns->field_labels = {"status.phase"};
  ns->own_field_labels = true;
  ns->delete_returns_object = true;
  out.push_back(ns);
  auto quota = make("", "v1", "ResourceQuota", "resourcequotas", true, {"quota"}, {}, true);
  quota->delete_returns_object = true;
  out.push_back(quota);
  auto core_event = make("", "v1", "Event", "events", true, {"ev"},
                         {{"Last Seen", "date", ".lastTimestamp", "", "", 0},
                          {"Type", "string", ".type", "", "", 0},
                          {"Reason", "string", ".reason", "", "", 0},
                          {"Object", "string", ".involvedObject.name", "", "", 0},
                          {"Message", "string", ".message", "", "", 0}});
  core_event->name_column_priority = 1;
  core_event->field_labels = {"involvedObject.kind",
                              "involvedObject.namespace",
                              "involvedObject.name",
                              "involvedObject.uid",
                              "involvedObject.apiVersion",
                              "involvedObject.resourceVersion",
                              "involvedObject.fieldPath",
                              "reason",
                              "reportingComponent",
                              "source",
                              "type"};
  core_event->own_field_labels = true;
  out.push_back(core_event);
  // DATA/SECRETS count entries, as kube's printers do ("count" is the kit's column type).
  out.push_back(make("", "v1", "ConfigMap", "configmaps", true, {"cm"},
                     {{"Data", "count", ".data,.binaryData", "", "", 0}, kAge}));
  auto secret = make("", "v1", "Secret", "secrets", true, {},
                     {{"Type", "string", ".type", "", "", 0}, {"Data", "count", ".data", "", "", 0}, kAge});
  secret->field_labels = {"type"};
  secret->own_field_labels = true;
  out.push_back(secret);
  auto service_account = make("", "v1", "ServiceAccount", "serviceaccounts", true, {"sa"},
                              {{"Secrets", "count", ".secrets", "", "", 0}, kAge});
  service_account->delete_returns_object = true;
  out.push_back(service_account);
  auto event = make("events.k8s.io", "v1", "Event", "events", true, {"ev"},
                    {{"Reason", "string", ".reason", "", "", 0}, {"Note", "string", ".note", "", "", 0}, kAge});
  event->field_labels = {"reason",
                         "regarding.kind",
                         "regarding.namespace",
                         "regarding.name",
                         "regarding.uid",
                         "regarding.apiVersion",
                         "regarding.resourceVersion",
                         "regarding.fieldPath",
                         "reportingController",
                         "type"};
  event->own_field_labels = true;
  out.push_back(event);
  out.push_back(make("coordination.k8s.io", "v1", "Lease", "leases", true, {},
                     {{"Holder", "string", ".spec.holderIdentity", "", "", 0}, kAge}));
  out.push_back(make("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
                     "validatingwebhookconfigurations", false));
  auto crd = make("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false,
                  {"crd", "crds"}, {{"Created At", "string", ".metadata.creationTimestamp", "", "date-time", 0}}, true);
  crd->delete_returns_object = true;
  out.push_back(crd);
  auto token_review = make("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", false);
  token_review->create_only = true;
  out.push_back(token_review);
  auto sar = make("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", false);
  sar->create_only = true;
  out.push_back(sar);
  // What `kubectl auth can-i` asks: may the caller itself do this?
  auto self_sar = make("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false);
  self_sar->create_only = true;
  out.push_back(self_sar);
  return out;
}

namespace {

ApiError invalid_crd(const std::string& name, std::vector<StatusCause> causes) {
  ApiError error(
      422, "Invalid",
      "CustomResourceDefinition.apiextensions.k8s.io \"" + name + "\" is invalid: " + aggregate_causes(causes));
  error.detail_name = name;
  error.detail_group = "apiextensions.k8s.io";
  error.detail_kind = "CustomResourceDefinition";
  error.causes = std::move(causes);
  return error;
}

std::vector<std::string> strings_at(const Json& root, const std::vector<std::string>& path) {
  std::vector<std::string> out;
  const Json* v = at_path(root, path);
  if (v && v->IsArray())
    for (const auto& s : v->GetArray())
      if (s.IsString()) out.emplace_back(s.GetString(), s.GetStringLength());
  return out;
}

}  // namespace

std::shared_ptr<const ResourceType> type_from_crd(const Json& crd) {
  const std::string name = string_at(crd, {"metadata", "name"});
  std::vector<StatusCause> causes;
  auto t = std::make_shared<ResourceType>();
  t->is_crd = true;
  t->group = string_at(crd, {"spec", "group"});
  t->kind = string_at(crd, {"spec", "names", "kind"});
  t->plural = string_at(crd, {"spec", "names", "plural"});
  t->singular = string_at(crd, {"spec", "names", "singular"});
  t->list_kind = string_at(crd, {"spec", "names", "listKind"}, t->kind + "List");
  t->short_names = strings_at(crd, {"spec", "names", "shortNames"});
  t->categories = strings_at(crd, {"spec", "names", "categories"});
  std::string scope = string_at(crd, {"spec", "scope"});
  t->namespaced = scope == "Namespaced";
  t->own_field_labels = true;
  if (const Json* versions = at_path(crd, {"spec", "versions"}); versions && versions->IsArray())
    for (const auto& v : versions->GetArray())
      if (const Json* fields = member(v, "selectableFields"); fields && fields->IsArray())
        for (const auto& f : fields->GetArray()) {
          std::string path = string_at(f, {"jsonPath"});
          if (!path.empty() && path[0] == '.') path.erase(0, 1);
          if (!path.empty()) t->field_labels.push_back(path);
        }
  if (t->group.empty()) causes.push_back({"FieldValueRequired", "Required value", "spec.group"});
  if (t->plural.empty()) causes.push_back({"FieldValueRequired", "Required value", "spec.names.plural"});
  if (t->kind.empty()) causes.push_back({"FieldValueRequired", "Required value", "spec.names.kind"});
  if (scope != "Namespaced" && scope != "Cluster")
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"",
                      "spec.scope"});
  if (!t->plural.empty() && !t->group.empty() && name != t->plural + "." + t->group)
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group", "metadata.name"});
  if (t->singular.empty()) {
    t->singular.resize(t->kind.size());
    for (std::size_t i = 0; i < t->kind.size(); ++i) t->singular[i] = static_cast<char>(std::tolower(t->kind[i]));
  }
  const Json* versions = at_path(crd, {"spec", "versions"});
  if (!versions || !versions->IsArray() || versions->Empty()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.versions"});
  } else {
    int storage_count = 0;
    for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
      const Json& v = (*versions)[i];
      const std::string field = "spec.versions[" + std::to_string(i) + "]";
      const Json* served = member(v, "served");
      const Json* storage = member(v, "storage");
      if (storage && storage->IsBool() && storage->GetBool()) ++storage_count;
      if (served && served->IsBool() && !served->GetBool()) continue;
      ResourceVersionInfo info;
      info.name = string_at(v, {"name"});
      if (const Json* schema = at_path(v, {"schema", "openAPIV3Schema"})) {
        try {
          info.schema = compile_schema(*schema, field + ".schema.openAPIV3Schema");
          info.raw_schema = clone(*schema);
        } catch (const SchemaError& e) {
          causes.push_back({"FieldValueInvalid", e.what(), e.field()});
        }
      } else {
        causes.push_back(
            {"FieldValueRequired", "Required value: schemas are required", field + ".schema.openAPIV3Schema"});
      }
      info.has_status = at_path(v, {"subresources", "status"}) != nullptr;
      if (const Json* scale = at_path(v, {"subresources", "scale"})) {
        ScaleSubresource s;
        s.spec_replicas_path = string_at(*scale, {"specReplicasPath"});
        s.status_replicas_path = string_at(*scale, {"statusReplicasPath"});
        s.label_selector_path = string_at(*scale, {"labelSelectorPath"});
        if (s.spec_replicas_path.empty())
          causes.push_back({"FieldValueRequired", "Required value", field + ".subresources.scale.specReplicasPath"});
        info.scale = s;
      }
      if (const Json* cols = member(v, "additionalPrinterColumns"); cols && cols->IsArray() && !cols->Empty()) {
        for (const auto& c : cols->GetArray()) {
          PrinterColumn col;
          col.name = string_at(c, {"name"});
          col.type = string_at(c, {"type"});
          col.json_path = string_at(c, {"jsonPath"});
          col.description = string_at(c, {"description"});
          col.format = string_at(c, {"format"});
          if (const Json* p = member(c, "priority"); p && p->IsInt()) col.priority = p->GetInt();
          info.columns.push_back(col);
        }
      } else {
        info.columns.push_back(kAge);
      }
      // The storage version goes first: it is the preferred version in discovery.
      if (storage && storage->IsBool() && storage->GetBool())
        t->versions.insert(t->versions.begin(), std::move(info));
      else
        t->versions.push_back(std::move(info));
    }
    if (storage_count != 1)
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: []string{...}: must have exactly one version marked as storage version",
                        "spec.versions"});
  }
  if (!causes.empty()) throw invalid_crd(name, std::move(causes));
  return t;
}

}  // namespace dha::testing::apiserver
