// The OpenAPI v2 document. Current clients read OpenAPI v3 (discovery.cpp); /openapi/v2 is
// served in JSON for the tools that still ask for it. Clients that accept it only as protobuf
// (older kubectl, Debian 12's 1.20 among them, fetch it so before every `apply`) are refused with a message
// that names their version and the oldest kubectl this server is tested with, instead of the
// bare "the server could not find the requested resource" such a kubectl would print.

#include "openapi.hpp"
#include "server_state.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace dha::testing::apiserver {

namespace {

// The oldest kubectl the project's tests drive this server with; scripts/install-deps checks
// the same floor and builds the pinned kubectl below it.
constexpr const char* kOldestTestedKubectl = "v1.32";

// "kubectl/v1.20.2 (linux/amd64) kubernetes/faecb19" -> "kubectl/v1.20.2"; the whole agent
// when it has no such form, "a client without a User-Agent" when there is none.
std::string client_name(const HttpRequest& request) {
  std::string agent = request.header("user-agent");
  if (agent.empty()) return "a client without a User-Agent";
  auto space = agent.find(' ');
  return space == std::string::npos ? agent : agent.substr(0, space);
}

// A 406 in plain text: a client reading the document with Raw() (kubectl's discovery does) shows
// a text body as the error's message, while a JSON Status body would be replaced by the generic
// "unable to respond with a content type that the client supports".
bool refuse_protobuf(const HttpRequest& request, HttpResponse& response) {
  response = HttpResponse{};
  response.status = 406;
  response.content_type = "text/plain; charset=utf-8";
  response.body = client_name(request) + " asked for the OpenAPI v2 document as protobuf, which this API server " +
                  "does not serve (it serves OpenAPI v3, and v2 in JSON): use kubectl " + kOldestTestedKubectl +
                  " or newer (scripts/install-deps builds the kubectl the project pins)";
  return true;
}

std::string document(const ServerState& state) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("swagger");
  w.String("2.0");
  w.Key("info");
  w.StartObject();
  w.Key("title");
  w.String("Kubernetes");
  w.Key("version");
  w.String("v1.32.0");
  w.EndObject();
  w.Key("paths");
  w.StartObject();
  w.EndObject();
  // Each CRD version's schema under kube's definition name, tagged with its GVK.
  w.Key("definitions");
  w.StartObject();
  for (const auto& [key, type] : state.types) {
    for (const auto& v : type->versions) {
      if (!v.raw_schema) continue;
      JsonDoc schema;
      schema.CopyFrom(*v.raw_schema, schema.GetAllocator());
      auto& a = schema.GetAllocator();
      Json gvk(rapidjson::kObjectType);
      set_string(gvk, "group", type->group, a);
      set_string(gvk, "version", v.name, a);
      set_string(gvk, "kind", type->kind, a);
      Json list(rapidjson::kArrayType);
      list.PushBack(gvk, a);
      set_member(schema, "x-kubernetes-group-version-kind", std::move(list), a);
      std::string name = openapi_definition_name(type->group, v.name, type->kind);
      w.Key(name.c_str());
      schema.Accept(w);
    }
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace

bool handle_openapi_v2(ServerState& state, const HttpRequest& request, HttpResponse& response) {
  const std::string& p = request.path;
  // The path kubectl falls back to when /openapi/v2 refuses protobuf: protobuf by name.
  if (p == "/swagger-2.0.0.pb-v1") return refuse_protobuf(request, response);
  if (p != "/openapi/v2" && p != "/openapi/v2/") return false;
  std::string accept = request.header("accept");
  bool json = accept.empty() || accept.find("json") != std::string::npos || accept.find("*/*") != std::string::npos;
  if (!json) return refuse_protobuf(request, response);
  std::lock_guard lock(state.mu);
  response = HttpResponse{};
  response.body = document(state);
  return true;
}

}  // namespace dha::testing::apiserver
