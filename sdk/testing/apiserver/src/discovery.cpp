// Discovery (/api, /apis, group and group-version documents, /version) and the OpenAPI v3
// documents kubectl reads to learn that the server validates fields itself.

#include "openapi.hpp"
#include "server_state.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string gv(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

// group -> versions (preferred first), across built-ins and CRDs.
std::map<std::string, std::vector<std::string>> group_versions(const ServerState& state) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [key, type] : state.types) {
    auto& versions = out[type->group];
    for (const auto& v : type->versions)
      if (std::find(versions.begin(), versions.end(), v.name) == versions.end()) versions.push_back(v.name);
  }
  return out;
}

void strings(Writer& w, const std::vector<std::string>& values) {
  w.StartArray();
  for (const auto& v : values) w.String(v);
  w.EndArray();
}

std::string resource_list(const ServerState& state, const std::string& group, const std::string& version) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("APIResourceList");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("groupVersion");
  w.String(gv(group, version));
  w.Key("resources");
  w.StartArray();
  for (const auto& entry : state.types) {
    const auto& type = entry.second;
    if (type->group != group) continue;
    const ResourceVersionInfo* v = type->version(version);
    if (!v) continue;
    w.StartObject();
    w.Key("name");
    w.String(type->plural);
    w.Key("singularName");
    w.String(type->singular);
    w.Key("namespaced");
    w.Bool(type->namespaced);
    w.Key("kind");
    w.String(type->kind);
    w.Key("verbs");
    if (type->create_only)
      strings(w, {"create"});
    else if (type->group.empty() && type->plural == "namespaces")  // kube has no collection delete for them
      strings(w, {"create", "delete", "get", "list", "patch", "update", "watch"});
    else
      strings(w, {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"});
    if (!type->short_names.empty()) {
      w.Key("shortNames");
      strings(w, type->short_names);
    }
    if (!type->categories.empty()) {
      w.Key("categories");
      strings(w, type->categories);
    }
    w.EndObject();
    auto sub = [&](const std::string& name, const std::string& g, const std::string& ver, const std::string& kind) {
      w.StartObject();
      w.Key("name");
      w.String(type->plural + "/" + name);
      w.Key("singularName");
      w.String("");
      w.Key("namespaced");
      w.Bool(type->namespaced);
      if (!g.empty()) {
        w.Key("group");
        w.String(g);
        w.Key("version");
        w.String(ver);
      }
      w.Key("kind");
      w.String(kind);
      w.Key("verbs");
      strings(w, {"get", "patch", "update"});
      w.EndObject();
    };
    if (v->has_status) sub("status", "", "", type->kind);
    if (v->scale) sub("scale", "autoscaling", "v1", "Scale");
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

void group_object(Writer& w, const std::string& group, const std::vector<std::string>& versions) {
  w.StartObject();
  w.Key("name");
  w.String(group);
  w.Key("versions");
  w.StartArray();
  for (const auto& v : versions) {
    w.StartObject();
    w.Key("groupVersion");
    w.String(gv(group, v));
    w.Key("version");
    w.String(v);
    w.EndObject();
  }
  w.EndArray();
  w.Key("preferredVersion");
  w.StartObject();
  w.Key("groupVersion");
  w.String(gv(group, versions.front()));
  w.Key("version");
  w.String(versions.front());
  w.EndObject();
  w.EndObject();
}

// One PATCH operation per kind, carrying the GVK and the fieldValidation parameter: that is
// what kubectl checks before it leaves validation to the server.
std::string openapi_group_version(const ServerState& state, const std::string& group, const std::string& version) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("openapi");
  w.String("3.0.0");
  w.Key("info");
  w.StartObject();
  w.Key("title");
  w.String("Kubernetes");
  w.Key("version");
  w.String("v1.32.0");
  w.EndObject();
  w.Key("paths");
  w.StartObject();
  for (const auto& [key, type] : state.types) {
    if (type->group != group || !type->version(version)) continue;
    std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    std::string path = prefix + (type->namespaced ? "/namespaces/{namespace}/" : "/") + type->plural + "/{name}";
    w.Key(path.c_str());
    w.StartObject();
    if (!type->create_only) {
      w.Key("patch");
      w.StartObject();
      w.Key("operationId");
      w.String("patch" + type->kind);
      w.Key("x-kubernetes-action");
      w.String("patch");
      w.Key("x-kubernetes-group-version-kind");
      w.StartObject();
      w.Key("group");
      w.String(group);
      w.Key("version");
      w.String(version);
      w.Key("kind");
      w.String(type->kind);
      w.EndObject();
      w.Key("parameters");
      w.StartArray();
      for (const char* p : {"dryRun", "fieldManager", "fieldValidation", "force"}) {
        w.StartObject();
        w.Key("name");
        w.String(p);
        w.Key("in");
        w.String("query");
        w.Key("schema");
        w.StartObject();
        w.Key("type");
        w.String(std::string(p) == "force" ? "boolean" : "string");
        w.EndObject();
        w.EndObject();
      }
      w.EndArray();
      w.Key("requestBody");
      w.StartObject();
      w.Key("content");
      w.StartObject();
      for (const char* mt :
           {"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}) {
        w.Key(mt);
        w.StartObject();
        w.Key("schema");
        w.StartObject();
        w.Key("type");
        w.String("object");
        w.EndObject();
        w.EndObject();
      }
      w.EndObject();
      w.Key("required");
      w.Bool(true);
      w.EndObject();
      w.Key("responses");
      w.StartObject();
      w.Key("200");
      w.StartObject();
      w.Key("description");
      w.String("OK");
      w.EndObject();
      w.EndObject();
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndObject();
  // CRD schemas, tagged with their GVK, so `kubectl explain` can describe custom kinds.
  w.Key("components");
  w.StartObject();
  w.Key("schemas");
  w.StartObject();
  for (const auto& [key, type] : state.types) {
    const ResourceVersionInfo* v = type->group == group ? type->version(version) : nullptr;
    if (!v || !v->raw_schema) continue;
    JsonDoc schema;
    schema.CopyFrom(*v->raw_schema, schema.GetAllocator());
    auto& a = schema.GetAllocator();
    Json gvk(rapidjson::kObjectType);
    set_string(gvk, "group", group, a);
    set_string(gvk, "version", version, a);
    set_string(gvk, "kind", type->kind, a);
    Json list(rapidjson::kArrayType);
    list.PushBack(gvk, a);
    set_member(schema, "x-kubernetes-group-version-kind", std::move(list), a);
    std::string name = openapi_definition_name(group, version, type->kind);
    w.Key(name.c_str());
    schema.Accept(w);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

HttpResponse ok(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

}  // namespace

std::string openapi_definition_name(const std::string& group, const std::string& version, const std::string& kind) {
  // kube names a CRD's schema by its group reversed: apps.cozystack.io -> io.cozystack.apps.
  std::string reversed;
  for (std::size_t end = group.size(); end != std::string::npos && end > 0;) {
    std::size_t dot = group.rfind('.', end - 1);
    std::size_t begin = dot == std::string::npos ? 0 : dot + 1;
    reversed += (reversed.empty() ? "" : ".") + group.substr(begin, end - begin);
    end = dot;
  }
  return reversed + "." + version + "." + kind;
}

namespace {

using GroupVersions = std::map<std::string, std::vector<std::string>>;

// /apis: every group but the core one.
std::string api_group_list(const GroupVersions& groups) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("APIGroupList");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("groups");
  w.StartArray();
  for (const auto& [group, versions] : groups)
    if (!group.empty()) group_object(w, group, versions);
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

// /apis/<group> (its APIGroup) and /apis/<group>/<version> (its resources); nullopt for 404.
std::optional<std::string> api_group_or_resources(const ServerState& state, const GroupVersions& groups,
                                                  std::string rest) {
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  const auto slash = rest.find('/');
  const std::string group = rest.substr(0, slash);
  const auto it = groups.find(group);
  if (it == groups.end()) return std::nullopt;
  if (slash == std::string::npos) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    group_object(w, group, it->second);
    const std::string body = buffer.GetString();
    return "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"," + body.substr(1);
  }
  const std::string version = rest.substr(slash + 1);
  if (version.find('/') != std::string::npos) return std::nullopt;
  if (std::find(it->second.begin(), it->second.end(), version) == it->second.end()) return std::nullopt;
  return resource_list(state, group, version);
}

// /openapi/v3: where each group version's document is, with a hash that changes with the types.
std::string openapi_v3_index(const ServerState& state, const GroupVersions& groups) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("paths");
  w.StartObject();
  for (const auto& [group, versions] : groups) {
    for (const auto& v : versions) {
      std::string key = group.empty() ? "api/" + v : "apis/" + group + "/" + v;
      w.Key(key.c_str());
      w.StartObject();
      w.Key("serverRelativeURL");
      w.String("/openapi/v3/" + key + "?hash=" + std::to_string(state.types_generation));
      w.EndObject();
    }
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

// /openapi/v3/api/<version> and /openapi/v3/apis/<group>/<version>; nullopt for 404.
std::optional<std::string> openapi_v3_document(const ServerState& state, const GroupVersions& groups,
                                               const std::string& key) {
  std::string group, version;
  if (key.rfind("api/", 0) == 0) {
    version = key.substr(4);
  } else if (key.rfind("apis/", 0) == 0) {
    const auto rest = key.substr(5);
    const auto slash = rest.find('/');
    if (slash == std::string::npos) return std::nullopt;
    group = rest.substr(0, slash);
    version = rest.substr(slash + 1);
  } else {
    return std::nullopt;
  }
  const auto it = groups.find(group);
  if (it == groups.end() || std::find(it->second.begin(), it->second.end(), version) == it->second.end())
    return std::nullopt;
  return openapi_group_version(state, group, version);
}

}  // namespace

bool handle_discovery(ServerState& state, const HttpRequest& request, HttpResponse& response) {
  const std::string& p = request.path;
  std::lock_guard lock(state.mu);
  if (p == "/version" || p == "/version/") {
    response = ok(
        R"({"major":"1","minor":"32","gitVersion":"v1.32.0-dha-testkit","gitCommit":"0000000000000000000000000000000000000000","gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.23","compiler":"gc","platform":"linux/amd64"})");
    return true;
  }
  if (p == "/healthz" || p == "/livez" || p == "/readyz") {
    response = ok("ok");
    response.content_type = "text/plain; charset=utf-8";
    return true;
  }
  const GroupVersions groups = group_versions(state);
  std::optional<std::string> body;
  if (p == "/api" || p == "/api/") {
    body =
        R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":")" +
        state.base_url.substr(state.base_url.find("//") + 2) + "\"}]}";
  } else if (p == "/api/v1" || p == "/api/v1/") {
    body = resource_list(state, "", "v1");
  } else if (p == "/apis" || p == "/apis/") {
    body = api_group_list(groups);
  } else if (p.rfind("/apis/", 0) == 0) {
    body = api_group_or_resources(state, groups, p.substr(6));
  } else if (p == "/openapi/v3" || p == "/openapi/v3/") {
    body = openapi_v3_index(state, groups);
  } else if (p.rfind("/openapi/v3/", 0) == 0) {
    body = openapi_v3_document(state, groups, p.substr(12));
  }
  if (!body) return false;
  response = ok(*body);
  return true;
}

}  // namespace dha::testing::apiserver
