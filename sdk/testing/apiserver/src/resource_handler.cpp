// CRUD on stored resources: get, list, create, update, patch, delete, deletecollection, and
// the /status and /scale subresources, with kube-apiserver's object semantics.

#include "admission.hpp"
#include "builtin_validation.hpp"
#include "namespace_lifecycle.hpp"
#include "object_meta.hpp"
#include "patch.hpp"
#include "protobuf_decode.hpp"
#include "selectors.hpp"
#include "server_state.hpp"

#include <algorithm>

namespace dha::testing::apiserver {

namespace {

using Lock = std::unique_lock<std::mutex>;

std::string media_type(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return t;
}

bool is_yaml(const std::string& mt) {
  return mt == "application/yaml" || mt == "application/x-yaml" || mt == "text/yaml";
}

// A built-in kind's body may leave kind and apiVersion out: kube's typed decoder takes them
// from the URL. Custom objects must carry both.
void default_type_fields(JsonDoc& body, const ResourceRequest& rr) {
  if (rr.type->is_crd || !body.IsObject()) return;
  auto& a = body.GetAllocator();
  if (string_at(body, {"kind"}).empty()) set_string(body, "kind", rr.type->kind, a);
  if (string_at(body, {"apiVersion"}).empty()) set_string(body, "apiVersion", rr.api_version(), a);
}

void check_object_body(const Json& body, const ResourceRequest& rr, const std::string& expected_kind) {
  if (!body.IsObject())
    throw bad_request("the object provided is unrecognized (must be of type " + expected_kind + ")");
  std::string kind = string_at(body, {"kind"});
  std::string api_version = string_at(body, {"apiVersion"});
  if (kind.empty()) throw bad_request("Object 'Kind' is missing in '" + to_json(body).substr(0, 200) + "'");
  if (api_version.empty())
    throw bad_request("Object 'apiVersion' is missing in '" + to_json(body).substr(0, 200) + "'");
  std::string group = api_version.find('/') == std::string::npos ? "" : api_version.substr(0, api_version.find('/'));
  if (group != rr.type->group || kind != expected_kind)
    throw bad_request("the API version in the data (" + api_version + ") does not match the expected API version (" +
                      rr.api_version() + ")");
}

bool dry_run(const HttpRequest& request) {
  auto range = request.params.equal_range("dryRun");
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second == "All") return true;
    throw bad_request("dryRun: Unsupported value: \"" + it->second + "\": supported values: \"All\"");
  }
  return false;
}

HttpResponse json_response(int status, std::string body, std::vector<std::string> warnings = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  for (const auto& w : warnings) r.headers.emplace_back("Warning", "299 - \"" + w + "\"");
  return r;
}

std::string now() { return now_rfc3339(); }

// --- writes ---------------------------------------------------------------------------------

enum class Action { Store, Erase };

struct Plan {
  int status = 200;
  const char* event = "MODIFIED";
  Action action = Action::Store;
  ObjectPtr old_object;
  std::shared_ptr<JsonDoc> next;
  std::string operation;  // admission operation
  bool noop = false;
  std::vector<std::string> warnings;
};

// Fills defaults, prunes and validates custom objects against their version's schema.
void apply_schema(const ResourceRequest& rr, JsonDoc& obj, const HttpRequest& request,
                  std::vector<std::string>& warnings) {
  const SchemaNode* schema = rr.version->schema.get();
  if (!schema) return;
  apply_defaults(*schema, obj, obj.GetAllocator());
  std::vector<std::string> unknown;
  prune_unknown(*schema, obj, "", unknown);
  std::string validation = request.param("fieldValidation", "Warn");
  if (!unknown.empty() && validation == "Strict") {
    std::string msg = "strict decoding error: ";
    for (std::size_t i = 0; i < unknown.size(); ++i)
      msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
    throw bad_request(msg);
  }
  if (validation == "Warn")
    for (const auto& u : unknown) warnings.push_back("unknown field \\\"" + u + "\\\"");
  std::vector<StatusCause> causes;
  validate_value(*schema, obj, "", causes);
  if (!causes.empty()) throw invalid_object(*rr.type, string_at(obj, {"metadata", "name"}), std::move(causes));
}

// Kind-specific server-side behaviour of the built-ins.
void builtin_prepare(ServerState& state, const ResourceRequest& rr, JsonDoc& obj, bool creating) {
  auto& alloc = obj.GetAllocator();
  const std::string& key_group = rr.type->group;
  if (key_group.empty() && rr.type->plural == "namespaces") {
    std::string name = string_at(obj, {"metadata", "name"});
    set_string(ensure_object(ensure_object(obj, "metadata", alloc), "labels", alloc), "kubernetes.io/metadata.name",
               name, alloc);
    if (creating) {
      Json finalizers(rapidjson::kArrayType);
      finalizers.PushBack(Json("kubernetes", alloc), alloc);
      set_member(ensure_object(obj, "spec", alloc), "finalizers", std::move(finalizers), alloc);
      set_string(ensure_object(obj, "status", alloc), "phase", "Active", alloc);
    }
  } else if (key_group.empty() && rr.type->plural == "resourcequotas") {
    // The quota controller mirrors spec.hard into status.hard; `used` stays what /status wrote.
    Json& status = ensure_object(obj, "status", alloc);
    if (const Json* hard = at_path(obj, {"spec", "hard"})) {
      Json copy(*hard, alloc);
      set_member(status, "hard", std::move(copy), alloc);
    }
    Json& used = ensure_object(status, "used", alloc);
    if (const Json* hard = at_path(obj, {"spec", "hard"}); hard && hard->IsObject())
      for (auto it = hard->MemberBegin(); it != hard->MemberEnd(); ++it)
        if (!member(used, std::string(it->name.GetString()))) set_string(used, it->name.GetString(), "0", alloc);
  } else if (key_group == "apiextensions.k8s.io" && rr.type->plural == "customresourcedefinitions") {
    auto parsed = type_from_crd(obj);  // throws 422 for bad CRDs
    auto existing = state.types.find(parsed->key());
    if (existing != state.types.end() && !existing->second->is_crd)
      throw invalid_object(
          *rr.type, string_at(obj, {"metadata", "name"}),
          {{"FieldValueInvalid", "Invalid value: \"" + parsed->group + "\": is a built-in group", "spec.group"}});
    Json status(rapidjson::kObjectType);
    Json conditions(rapidjson::kArrayType);
    for (const char* type : {"NamesAccepted", "Established"}) {
      Json c(rapidjson::kObjectType);
      set_string(c, "type", type, alloc);
      set_string(c, "status", "True", alloc);
      set_string(c, "lastTransitionTime", now(), alloc);
      set_string(c, "reason", type == std::string("Established") ? "InitialNamesAccepted" : "NoConflicts", alloc);
      set_string(c, "message",
                 type == std::string("Established") ? "the initial names have been accepted" : "no conflicts found",
                 alloc);
      conditions.PushBack(c, alloc);
    }
    set_member(status, "conditions", std::move(conditions), alloc);
    if (const Json* names = at_path(obj, {"spec", "names"}))
      set_member(status, "acceptedNames", Json(*names, alloc), alloc);
    Json stored(rapidjson::kArrayType);
    stored.PushBack(Json(parsed->versions.front().name.c_str(), alloc), alloc);
    set_member(status, "storedVersions", std::move(stored), alloc);
    set_member(obj, "status", std::move(status), alloc);
  }
}

// Applies CRD registration side effects after a CRD object is stored or removed.
void after_commit(ServerState& state, const ResourceRequest& rr, const Plan& plan) {
  if (rr.type->group != "apiextensions.k8s.io" || rr.type->plural != "customresourcedefinitions") return;
  if (plan.action == Action::Store && !string_at(*plan.next, {"metadata", "deletionTimestamp"}).empty()) return;
  const Json& crd = plan.action == Action::Store ? *plan.next : *plan.old_object;
  auto parsed = type_from_crd(crd);
  if (plan.action == Action::Store) {
    state.types[parsed->key()] = parsed;
  } else {
    state.types.erase(parsed->key());
    for (const auto& obj : state.store.list(parsed->key(), "")) {
      uint64_t rv = state.store.next_rv();
      auto final_obj = clone(*obj);
      set_resource_version(*final_obj, rv);
      state.store.erase(parsed->key(), string_at(*obj, {"metadata", "namespace"}),
                        string_at(*obj, {"metadata", "name"}), final_obj, rv);
    }
  }
  ++state.types_generation;
}

Plan plan_create(ServerState& state, const ResourceRequest& rr, JsonDoc body, const HttpRequest& request) {
  default_type_fields(body, rr);
  check_object_body(body, rr, rr.type->kind);
  auto obj = std::make_shared<JsonDoc>();
  obj->Swap(body);
  auto& alloc = obj->GetAllocator();
  Json& meta = ensure_object(*obj, "metadata", alloc);
  if (!string_at(*obj, {"metadata", "resourceVersion"}).empty())
    throw bad_request("resourceVersion should not be set on objects to be created");
  std::string name = string_at(*obj, {"metadata", "name"});
  std::string generate = string_at(*obj, {"metadata", "generateName"});
  if (name.empty() && !generate.empty()) {
    name = generate + random_suffix(5);
    set_string(meta, "name", name, alloc);
  }
  std::string body_ns = string_at(*obj, {"metadata", "namespace"});
  if (rr.type->namespaced) {
    if (!body_ns.empty() && body_ns != rr.ns)
      throw bad_request("the namespace of the provided object does not match the namespace sent on the request");
    set_string(meta, "namespace", rr.ns, alloc);
    auto ns_type = state.types.at("/namespaces");
    if (!state.store.get(ns_type->key(), "", rr.ns)) throw not_found("namespaces", rr.ns);
  } else {
    remove_member(meta, "namespace");
  }
  std::vector<StatusCause> causes;
  validate_name(*rr.type, name, causes);
  if (!causes.empty()) throw invalid_object(*rr.type, name, std::move(causes));
  if (state.store.get(rr.type->key(), rr.type->namespaced ? rr.ns : "", name))
    throw already_exists(rr.type->resource_with_group(), name);
  refuse_create_in_terminating_namespace(state, rr, name);

  set_string(*obj, "apiVersion", rr.api_version(), alloc);
  set_string(meta, "uid", new_uid(), alloc);
  set_string(meta, "creationTimestamp", now(), alloc);
  remove_member(meta, "deletionTimestamp");
  remove_member(meta, "deletionGracePeriodSeconds");
  remove_member(meta, "managedFields");
  remove_member(meta, "selfLink");
  if (rr.type->is_crd || rr.type->plural == "customresourcedefinitions")
    set_member(meta, "generation", Json(int64_t{1}), alloc);
  else
    remove_member(meta, "generation");
  // Status cannot be set on create when the kind has a status subresource.
  if (rr.version->has_status) remove_member(*obj, "status");

  Plan plan;
  plan.status = 201;
  plan.event = "ADDED";
  plan.operation = "CREATE";
  builtin_prepare(state, rr, *obj, true);
  apply_schema(rr, *obj, request, plan.warnings);
  validate_builtin(rr, *obj, true);
  plan.next = obj;
  return plan;
}

// The object a write to `rr` would leave, given the incoming body (already turned into a
// full object for PATCH and /scale).
Plan plan_update(ServerState& state, const ResourceRequest& rr, const ObjectPtr& old, JsonDoc incoming,
                 const HttpRequest& request, bool unconditional_allowed) {
  const std::string name = rr.name;
  default_type_fields(incoming, rr);
  check_object_body(incoming, rr, rr.type->kind);
  std::string body_name = string_at(incoming, {"metadata", "name"});
  if (!body_name.empty() && body_name != name)
    throw bad_request("the name of the object (" + body_name + ") does not match the name on the URL (" + name + ")");
  std::string body_ns = string_at(incoming, {"metadata", "namespace"});
  if (rr.type->namespaced && !body_ns.empty() && body_ns != rr.ns)
    throw bad_request("the namespace of the provided object does not match the namespace sent on the request");

  uint64_t old_rv = resource_version_of(*old);
  std::string rv_text = string_at(incoming, {"metadata", "resourceVersion"});
  if (rv_text.empty() && !unconditional_allowed && rr.type->is_crd) {
    // kube names custom objects by resource here, not by kind.
    ApiError error(422, "Invalid",
                   rr.type->resource_with_group() + " \"" + name +
                       "\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update");
    error.detail_name = name;
    error.detail_group = rr.type->group;
    error.detail_kind = rr.type->plural;
    error.causes = {
        {"FieldValueInvalid", "Invalid value: 0: must be specified for an update", "metadata.resourceVersion"}};
    throw error;
  }
  if (!rv_text.empty() && rv_text != std::to_string(old_rv))
    throw conflict(rr.type->resource_with_group(), name,
                   "the object has been modified; please apply your changes to the latest version and try again");

  auto next = std::make_shared<JsonDoc>();
  auto& alloc = next->GetAllocator();
  if (rr.subresource == "status") {
    // Only status changes; everything else stays as stored.
    next->CopyFrom(*old, alloc);
    if (const Json* status = member(incoming, "status"))
      set_member(*next, "status", Json(*status, alloc), alloc);
    else
      remove_member(*next, "status");
  } else {
    next->CopyFrom(incoming, alloc);
    Json& meta = ensure_object(*next, "metadata", alloc);
    for (const char* system_field : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                                     "generation", "name", "namespace", "managedFields"}) {
      if (const Json* v = at_path(*old, {"metadata", system_field}))
        set_member(meta, system_field, Json(*v, alloc), alloc);
      else
        remove_member(meta, system_field);
    }
    if (rr.version->has_status) {
      if (const Json* status = member(*old, "status"))
        set_member(*next, "status", Json(*status, alloc), alloc);
      else
        remove_member(*next, "status");
    }
  }
  set_string(*next, "apiVersion", rr.api_version(), alloc);
  set_string(*next, "kind", rr.type->kind, alloc);
  set_resource_version(*next, old_rv);

  Plan plan;
  plan.old_object = old;
  plan.operation = "UPDATE";
  builtin_prepare(state, rr, *next, false);
  apply_schema(rr, *next, request, plan.warnings);
  validate_builtin(rr, *next, false);

  bool deleting = !string_at(*old, {"metadata", "deletionTimestamp"}).empty();
  if (deleting) {
    auto before = finalizers_of(*old);
    std::vector<std::string> added;
    for (const auto& f : finalizers_of(*next))
      if (std::find(before.begin(), before.end(), f) == before.end()) added.push_back("\"" + f + "\"");
    if (!added.empty()) {
      std::string list;
      for (const auto& a : added) list += (list.empty() ? "" : ", ") + a;
      throw invalid_object(*rr.type, name,
                           {{"FieldValueForbidden",
                             "Forbidden: no new finalizers can be added if the object is being deleted, found new "
                             "finalizers []string{" +
                                 list + "}",
                             "metadata.finalizers"}});
    }
  }
  if (same_content(*old, *next)) {
    plan.noop = true;
    plan.next = std::const_pointer_cast<JsonDoc>(std::make_shared<JsonDoc>());
    plan.next->CopyFrom(*old, plan.next->GetAllocator());
    return plan;
  }
  if (const Json* gen = at_path(*old, {"metadata", "generation"});
      gen && gen->IsInt64() && !same_spec(*old, *next, rr.version->has_status)) {
    set_member(ensure_object(*next, "metadata", alloc), "generation", Json(gen->GetInt64() + 1), alloc);
  }
  if (deleting && finalizers_of(*next).empty()) {
    plan.action = Action::Erase;
    plan.event = "DELETED";
  }
  plan.next = next;
  return plan;
}

std::shared_ptr<JsonDoc> scale_of(const ResourceRequest& rr, const Json& obj);

// Runs admission (dropping the lock) and commits; returns false if the object changed while
// the lock was dropped, so the caller re-plans.
bool admit_and_commit(ServerState& state, Lock& lock, const ResourceRequest& rr, Plan& plan, const Identity& identity,
                      bool is_dry_run, const std::string& ns, const std::string& name) {
  AdmissionAttributes attrs;
  attrs.operation = plan.operation;
  attrs.type = rr.type;
  attrs.version = rr.version->name;
  attrs.subresource = rr.subresource;
  attrs.ns = ns;
  attrs.name = name;
  attrs.object = plan.operation == "DELETE" ? nullptr : plan.next;
  attrs.old_object = plan.old_object;
  if (rr.subresource == "scale") {
    // A /scale write is reviewed as the Scale the client sent, not as the whole object.
    attrs.object = scale_of(rr, *plan.next);
    if (plan.old_object) attrs.old_object = scale_of(rr, *plan.old_object);
    attrs.object_group = "autoscaling";
    attrs.object_version = "v1";
    attrs.object_kind = "Scale";
  }
  attrs.user = identity;
  attrs.dry_run = is_dry_run;
  auto hooks = match_webhooks(state, attrs);
  if (!hooks.empty()) {
    lock.unlock();
    call_webhooks(hooks, attrs, state.options, plan.warnings);
    lock.lock();
    auto current = state.store.get(rr.type->key(), ns, name);
    bool changed = plan.old_object
                       ? (!current || resource_version_of(*current) != resource_version_of(*plan.old_object))
                       : current != nullptr;
    if (changed) return false;
  }
  if (is_dry_run) return true;
  uint64_t rv = state.store.next_rv();
  set_resource_version(*plan.next, rv);
  if (plan.action == Action::Store)
    state.store.put(rr.type->key(), ns, name, plan.next, rv, plan.event);
  else
    state.store.erase(rr.type->key(), ns, name, plan.next, rv);
  after_commit(state, rr, plan);
  // The last object of a terminating namespace going lets the namespace go.
  if (plan.action == Action::Erase && rr.type->namespaced) run_namespace_controller(state, ns);
  return true;
}

ObjectPtr must_get(ServerState& state, const ResourceRequest& rr) {
  auto obj = state.store.get(rr.type->key(), rr.ns, rr.name);
  if (!obj) throw not_found(rr.type->resource_with_group(), rr.name);
  return obj;
}

// --- /scale ------------------------------------------------------------------------------

std::vector<std::string> path_of(const std::string& json_path) { return split_dotted(json_path); }

std::shared_ptr<JsonDoc> scale_of(const ResourceRequest& rr, const Json& obj) {
  const auto& scale = *rr.version->scale;
  auto out = std::make_shared<JsonDoc>();
  auto& a = out->GetAllocator();
  out->SetObject();
  set_string(*out, "kind", "Scale", a);
  set_string(*out, "apiVersion", "autoscaling/v1", a);
  Json& meta = ensure_object(*out, "metadata", a);
  for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (const Json* v = at_path(obj, {"metadata", f})) set_member(meta, f, Json(*v, a), a);
  Json& spec = ensure_object(*out, "spec", a);
  const Json* replicas = at_path(obj, path_of(scale.spec_replicas_path));
  set_member(spec, "replicas", Json(replicas && replicas->IsInt64() ? replicas->GetInt64() : int64_t{0}), a);
  Json& status = ensure_object(*out, "status", a);
  const Json* status_replicas =
      scale.status_replicas_path.empty() ? nullptr : at_path(obj, path_of(scale.status_replicas_path));
  set_member(status, "replicas",
             Json(status_replicas && status_replicas->IsInt64() ? status_replicas->GetInt64() : int64_t{0}), a);
  if (!scale.label_selector_path.empty()) {
    std::string selector = string_at(obj, path_of(scale.label_selector_path));
    if (!selector.empty()) set_string(status, "selector", selector, a);
  }
  return out;
}

// Turns a new Scale into the full object with spec replicas written at specReplicasPath.
JsonDoc object_from_scale(const ResourceRequest& rr, const Json& current, const Json& scale) {
  if (string_at(scale, {"kind"}) != "Scale")
    throw bad_request("the object provided is unrecognized (must be of type Scale)");
  const Json* replicas = at_path(scale, {"spec", "replicas"});
  if (replicas && (!replicas->IsInt64() || replicas->GetInt64() < 0))
    throw ApiError(422, "Invalid",
                   "Scale.autoscaling \"" + rr.name + "\" is invalid: spec.replicas: Invalid value: " +
                       to_json(*replicas) + ": must be greater than or equal to 0");
  JsonDoc out;
  out.CopyFrom(current, out.GetAllocator());
  auto& a = out.GetAllocator();
  auto path = path_of(rr.version->scale->spec_replicas_path);
  Json* cur = &out;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) cur = &ensure_object(*cur, path[i], a);
  set_member(*cur, path.back(), Json(replicas && replicas->IsInt64() ? replicas->GetInt64() : int64_t{0}), a);
  std::string rv = string_at(scale, {"metadata", "resourceVersion"});
  if (!rv.empty())
    set_string(ensure_object(out, "metadata", a), "resourceVersion", rv, a);
  else
    remove_member(ensure_object(out, "metadata", a), "resourceVersion");
  return out;
}

// --- handlers ------------------------------------------------------------------------------

std::string object_response(const ResourceRequest& rr, const Json& obj) {
  if (rr.subresource == "scale") return to_json(*scale_of(rr, obj));
  return render_object(obj, rr.api_version());
}

HttpResponse respond_object(const ResourceRequest& rr, const HttpRequest& request, const ObjectPtr& obj, int status,
                            std::vector<std::string> warnings = {}) {
  if (wants_table(request) && rr.subresource.empty())
    return json_response(status, render_table(*rr.type, *rr.version, {obj}, "", "", true), std::move(warnings));
  return json_response(status, object_response(rr, *obj), std::move(warnings));
}

HttpResponse handle_list(ServerState& state, const ResourceRequest& rr, const HttpRequest& request) {
  LabelSelector labels = LabelSelector::parse(request.param("labelSelector"));
  FieldSelector fields = FieldSelector::parse(request.param("fieldSelector"), *rr.type);
  std::string limit_text = request.param("limit");
  std::size_t limit = 0;
  if (!limit_text.empty()) {
    if (limit_text.find_first_not_of("0123456789") != std::string::npos)
      throw bad_request("limit: invalid value " + limit_text);
    limit = std::stoul(limit_text);
  }
  std::string start_after;
  if (std::string token = request.param("continue"); !token.empty()) {
    std::string decoded = base64_decode(token);
    JsonDoc parsed;
    parsed.Parse(decoded.c_str());
    if (parsed.HasParseError() || !member(parsed, "start"))
      throw bad_request("continue key is not valid: illegal base64 data");
    start_after = string_at(parsed, {"start"});
  }
  std::vector<ObjectPtr> items;
  std::string next_token;
  // How many objects follow the page: kube says so only for unfiltered lists.
  bool count_remaining = labels.empty() && fields.empty();
  int64_t remaining = 0;
  for (const auto& obj : state.store.list(rr.type->key(), rr.ns)) {
    std::string key = string_at(*obj, {"metadata", "namespace"}) + "/" + string_at(*obj, {"metadata", "name"});
    if (!start_after.empty() && key <= start_after) continue;
    if (!labels.matches(at_path(*obj, {"metadata", "labels"})) || !fields.matches(*obj)) continue;
    if (limit > 0 && items.size() == limit) {
      if (next_token.empty()) {
        // There is more: the token resumes after the last returned key.
        const auto& last = *items.back();
        std::string last_key = string_at(last, {"metadata", "namespace"}) + "/" + string_at(last, {"metadata", "name"});
        next_token = base64_encode("{\"v\":\"meta.k8s.io/v1\",\"rv\":" + std::to_string(state.store.current_rv()) +
                                   ",\"start\":\"" + last_key + "\"}");
      }
      if (!count_remaining) break;
      ++remaining;
      continue;
    }
    items.push_back(obj);
  }
  std::string rv = std::to_string(state.store.current_rv());
  if (wants_table(request)) return json_response(200, render_table(*rr.type, *rr.version, items, rv, next_token, true));
  JsonDoc list(rapidjson::kObjectType);
  auto& a = list.GetAllocator();
  set_string(list, "kind", rr.type->list_kind, a);
  set_string(list, "apiVersion", rr.api_version(), a);
  Json& meta = ensure_object(list, "metadata", a);
  set_string(meta, "resourceVersion", rv, a);
  if (!next_token.empty()) set_string(meta, "continue", next_token, a);
  if (!next_token.empty() && count_remaining) set_member(meta, "remainingItemCount", Json(remaining), a);
  Json array(rapidjson::kArrayType);
  for (const auto& obj : items) {
    Json copy(*obj, a);
    if (rr.type->is_crd) {
      set_string(copy, "apiVersion", rr.api_version(), a);
    } else {
      // Typed lists from kube-apiserver leave kind and apiVersion out of their items; a
      // client that needs them must not get them here either.
      remove_member(copy, "kind");
      remove_member(copy, "apiVersion");
    }
    array.PushBack(copy, a);
  }
  set_member(list, "items", std::move(array), a);
  return json_response(200, to_json(list));
}

HttpResponse handle_create(ServerState& state, Lock& lock, const ResourceRequest& rr, const HttpRequest& request,
                           const Identity& identity) {
  if (!rr.subresource.empty())
    throw method_not_allowed("the server does not allow this method on the requested resource");
  bool is_dry_run = dry_run(request);
  Plan plan = plan_create(state, rr, read_object_body(request), request);
  std::string name = string_at(*plan.next, {"metadata", "name"});
  std::string ns = rr.type->namespaced ? rr.ns : "";
  // Someone else created the name while a webhook was deciding: that create won.
  if (!admit_and_commit(state, lock, rr, plan, identity, is_dry_run, ns, name))
    throw already_exists(rr.type->resource_with_group(), name);
  return respond_object(rr, request, plan.next, plan.status, plan.warnings);
}

// PUT and PATCH share this: `make_incoming` builds the full desired object from the current one.
template <class MakeIncoming>
HttpResponse handle_write(ServerState& state, Lock& lock, const ResourceRequest& rr, const HttpRequest& request,
                          const Identity& identity, bool unconditional_allowed, MakeIncoming make_incoming) {
  bool is_dry_run = dry_run(request);
  for (int attempt = 0; attempt < 10; ++attempt) {
    ObjectPtr current = must_get(state, rr);
    JsonDoc incoming = make_incoming(*current);
    Plan plan = plan_update(state, rr, current, std::move(incoming), request, unconditional_allowed);
    if (plan.noop) return respond_object(rr, request, current, 200, plan.warnings);
    if (!admit_and_commit(state, lock, rr, plan, identity, is_dry_run, rr.ns, rr.name)) continue;
    return respond_object(rr, request, plan.next, 200, plan.warnings);
  }
  throw conflict(rr.type->resource_with_group(), rr.name,
                 "the object has been modified; please apply your changes to the latest version and try again");
}

HttpResponse handle_put(ServerState& state, Lock& lock, const ResourceRequest& rr, const HttpRequest& request,
                        const Identity& identity) {
  JsonDoc body = read_object_body(request);
  return handle_write(state, lock, rr, request, identity, !rr.type->is_crd, [&](const Json& current) {
    JsonDoc incoming;
    if (rr.subresource == "scale") {
      incoming = object_from_scale(rr, current, body);
    } else {
      incoming.CopyFrom(body, incoming.GetAllocator());
    }
    return incoming;
  });
}

HttpResponse handle_patch(ServerState& state, Lock& lock, const ResourceRequest& rr, const HttpRequest& request,
                          const Identity& identity) {
  std::string mt = media_type(request.header("content-type"));
  bool strategic = mt == "application/strategic-merge-patch+json";
  bool apply = mt == "application/apply-patch+yaml" || mt == "application/apply-patch+cbor";
  if (strategic && rr.type->is_crd) throw unsupported_media_type("");
  if (mt != "application/merge-patch+json" && mt != "application/json-patch+json" && !strategic && !apply)
    throw unsupported_media_type(mt);
  if (apply && request.param("fieldManager").empty()) {
    ApiError error(
        422, "Invalid",
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    error.detail_group = "meta.k8s.io";
    error.detail_kind = "PatchOptions";
    error.causes = {{"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"}};
    throw error;
  }
  JsonDoc patch = apply ? parse_yaml(request.body) : parse_json(request.body);
  if (apply && !state.store.get(rr.type->key(), rr.ns, rr.name)) {
    // Server-side apply of a missing object creates it (approximation: no field ownership).
    HttpRequest create = request;
    create.headers["content-type"] = "application/json";
    create.body = to_json(patch);
    return handle_create(state, lock, rr, create, identity);
  }
  return handle_write(state, lock, rr, request, identity, true, [&](const Json& current) {
    JsonDoc target;
    auto& a = target.GetAllocator();
    if (rr.subresource == "scale")
      target.CopyFrom(*scale_of(rr, current), a);
    else
      target.CopyFrom(current, a);
    if (mt == "application/json-patch+json")
      apply_json_patch(target, patch, a);
    else
      apply_merge_patch(target, patch, a, strategic || apply);
    if (rr.subresource == "scale") return object_from_scale(rr, current, target);
    return target;
  });
}

// `want_object`: answer with the deleted object whatever the kind (a collection delete lists them).
HttpResponse handle_delete(ServerState& state, Lock& lock, const ResourceRequest& rr, const HttpRequest& request,
                           const Identity& identity, bool want_object = false) {
  bool is_dry_run = dry_run(request);
  JsonDoc options(rapidjson::kObjectType);
  if (!request.body.empty()) options = parse_json(request.body);
  if (const Json* dr = member(options, "dryRun"); dr && dr->IsArray() && !dr->Empty()) is_dry_run = true;
  for (int attempt = 0; attempt < 10; ++attempt) {
    ObjectPtr current = must_get(state, rr);
    std::string pre_uid = string_at(options, {"preconditions", "uid"});
    std::string pre_rv = string_at(options, {"preconditions", "resourceVersion"});
    if (!pre_uid.empty() && pre_uid != string_at(*current, {"metadata", "uid"}))
      throw conflict(rr.type->resource_with_group(), rr.name,
                     "Precondition failed: UID in precondition: " + pre_uid +
                         ", UID in object meta: " + string_at(*current, {"metadata", "uid"}));
    if (!pre_rv.empty() && pre_rv != std::to_string(resource_version_of(*current)))
      throw conflict(rr.type->resource_with_group(), rr.name,
                     "Precondition failed: ResourceVersion in precondition: " + pre_rv +
                         ", ResourceVersion in object meta: " + std::to_string(resource_version_of(*current)));
    Plan plan;
    plan.old_object = current;
    plan.operation = "DELETE";
    plan.next = clone(*current);
    auto& a = plan.next->GetAllocator();
    // A namespace is held by its spec.finalizers ("kubernetes") until its content is gone.
    const Json* spec_finalizers = at_path(*current, {"spec", "finalizers"});
    bool has_finalizers = !finalizers_of(*current).empty() || (is_namespace_type(*rr.type) && spec_finalizers &&
                                                               spec_finalizers->IsArray() && !spec_finalizers->Empty());
    if (has_finalizers) {
      if (!string_at(*current, {"metadata", "deletionTimestamp"}).empty())
        return respond_object(rr, request, current, 200);
      Json& meta = ensure_object(*plan.next, "metadata", a);
      set_string(meta, "deletionTimestamp", now(), a);
      set_member(meta, "deletionGracePeriodSeconds", Json(int64_t{0}), a);
      if (const Json* gen = member(meta, "generation"); gen && gen->IsInt64())
        set_member(meta, "generation", Json(gen->GetInt64() + 1), a);
      if (is_namespace_type(*rr.type)) set_string(ensure_object(*plan.next, "status", a), "phase", "Terminating", a);
    } else {
      plan.action = Action::Erase;
      plan.event = "DELETED";
    }
    if (!admit_and_commit(state, lock, rr, plan, identity, is_dry_run, rr.ns, rr.name)) continue;
    if (!is_dry_run && is_namespace_type(*rr.type)) run_namespace_controller(state, rr.name);
    // Gone at once: kube answers with a Status naming what went (kind is the resource, as
    // there); an object waiting on finalizers is answered with its new state.
    if (plan.action == Action::Erase && !want_object && !rr.type->delete_returns_object)
      return json_response(
          200, success_status_json(rr.name, rr.type->group, rr.type->plural, string_at(*current, {"metadata", "uid"})),
          plan.warnings);
    return respond_object(rr, request, plan.next, 200, plan.warnings);
  }
  throw conflict(rr.type->resource_with_group(), rr.name,
                 "the object has been modified; please apply your changes to the latest version and try again");
}

HttpResponse handle_delete_collection(ServerState& state, Lock& lock, const ResourceRequest& rr,
                                      const HttpRequest& request, const Identity& identity) {
  LabelSelector labels = LabelSelector::parse(request.param("labelSelector"));
  FieldSelector fields = FieldSelector::parse(request.param("fieldSelector"), *rr.type);
  std::vector<std::string> names;
  for (const auto& obj : state.store.list(rr.type->key(), rr.ns))
    if (labels.matches(at_path(*obj, {"metadata", "labels"})) && fields.matches(*obj))
      names.push_back(string_at(*obj, {"metadata", "namespace"}) + "/" + string_at(*obj, {"metadata", "name"}));
  JsonDoc list(rapidjson::kObjectType);
  auto& a = list.GetAllocator();
  set_string(list, "kind", rr.type->list_kind, a);
  set_string(list, "apiVersion", rr.api_version(), a);
  set_string(ensure_object(list, "metadata", a), "resourceVersion", std::to_string(state.store.current_rv()), a);
  Json items(rapidjson::kArrayType);
  for (const auto& key : names) {
    ResourceRequest one = rr;
    one.ns = key.substr(0, key.find('/'));
    one.name = key.substr(key.find('/') + 1);
    if (!state.store.get(rr.type->key(), one.ns, one.name)) continue;
    HttpRequest single = request;
    single.body.clear();
    auto response = handle_delete(state, lock, one, single, identity, true);
    JsonDoc deleted = parse_json(response.body);
    items.PushBack(Json(deleted, a), a);
  }
  set_member(list, "items", std::move(items), a);
  return json_response(200, to_json(list));
}

}  // namespace

JsonDoc read_object_body(const HttpRequest& request) {
  std::string mt = media_type(request.header("content-type"));
  if (mt == "application/json") return parse_json(request.body);
  if (is_yaml(mt)) return parse_yaml(request.body);
  if (mt == "application/vnd.kubernetes.protobuf") return decode_kubernetes_protobuf(request.body);
  throw ApiError(415, "UnsupportedMediaType",
                 "the body of the request was in an unknown format - accepted media types include: application/json, "
                 "application/yaml");
}

std::shared_ptr<JsonDoc> object_for_version(const Json& object, const std::string& api_version) {
  auto out = clone(object);
  set_string(*out, "apiVersion", api_version, out->GetAllocator());
  return out;
}

std::string render_object(const Json& object, const std::string& api_version) {
  if (string_at(object, {"apiVersion"}) == api_version) return to_json(object);
  return to_json(*object_for_version(object, api_version));
}

HttpResponse handle_resource(ServerState& state, const ResourceRequest& rr, const HttpRequest& request,
                             const Identity& identity) {
  Lock lock(state.mu);
  const std::string& m = request.method;
  if (rr.type->create_only) {
    lock.unlock();
    if (m != "POST" || !rr.name.empty())
      throw method_not_allowed("the server does not allow this method on the requested resource");
    return handle_review(state, rr, request, identity);
  }
  if (!rr.subresource.empty()) {
    bool known = (rr.subresource == "status" && rr.version->has_status) ||
                 (rr.subresource == "scale" && rr.version->scale.has_value());
    if (!known || rr.name.empty()) throw not_found(rr.type->resource_with_group(), rr.name);
  }
  if (rr.name.empty()) {
    if (m == "GET") {
      if (request.flag("watch")) {
        HttpResponse r;
        r.stream = open_watch(state, rr, request);
        return r;
      }
      return handle_list(state, rr, request);
    }
    if (m == "POST") return handle_create(state, lock, rr, request, identity);
    if (m == "DELETE") return handle_delete_collection(state, lock, rr, request, identity);
    throw method_not_allowed("the server does not allow this method on the requested resource");
  }
  if (m == "GET") return respond_object(rr, request, must_get(state, rr), 200);
  if (m == "PUT") return handle_put(state, lock, rr, request, identity);
  if (m == "PATCH") return handle_patch(state, lock, rr, request, identity);
  if (m == "DELETE" && rr.subresource.empty()) return handle_delete(state, lock, rr, request, identity);
  throw method_not_allowed("the server does not allow this method on the requested resource");
}

void apply_crd_object(ServerState& state, const Json& crd) {
  Lock lock(state.mu);
  ResourceRequest rr;
  rr.type = state.types.at("apiextensions.k8s.io/customresourcedefinitions");
  rr.version = &rr.type->versions.front();
  rr.name = string_at(crd, {"metadata", "name"});
  HttpRequest request;
  request.method = "POST";
  request.headers["content-type"] = "application/json";
  request.body = to_json(crd);
  Identity admin{"system:admin", {"system:masters"}, ""};
  if (state.store.get(rr.type->key(), "", rr.name)) {
    request.method = "PUT";
    handle_write(state, lock, rr, request, admin, true, [&](const Json&) { return parse_json(request.body); });
  } else {
    handle_create(state, lock, rr, request, admin);
  }
}

}  // namespace dha::testing::apiserver
