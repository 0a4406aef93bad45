// Bearer-token identities, TokenReview (authentication.k8s.io/v1) and a minimal
// (Self)SubjectAccessReview (authorization.k8s.io/v1): system:masters or an allow-listed user.

#include "server_state.hpp"

namespace dha::testing::apiserver {

const Identity* identity_for_token(const ServerState& state, const std::string& token) {
  if (token.empty()) return nullptr;
  auto it = state.options.tokens.find(token);
  return it == state.options.tokens.end() ? nullptr : &it->second;
}

namespace {

void set_strings(Json& obj, const char* key, const std::vector<std::string>& values, Alloc& a) {
  Json array(rapidjson::kArrayType);
  for (const auto& v : values) array.PushBack(Json(v.c_str(), a), a);
  set_member(obj, key, std::move(array), a);
}

}  // namespace

HttpResponse handle_review(ServerState& state, const ResourceRequest& rr, const HttpRequest& request,
                           const Identity& caller) {
  JsonDoc body = read_object_body(request);
  if (!body.IsObject() || string_at(body, {"kind"}) != rr.type->kind)
    throw bad_request("the object provided is unrecognized (must be of type " + rr.type->kind + ")");
  auto& a = body.GetAllocator();
  Json status(rapidjson::kObjectType);
  if (rr.type->kind == "TokenReview") {
    std::string token = string_at(body, {"spec", "token"});
    const Identity* who = identity_for_token(state, token);
    set_member(status, "authenticated", Json(who != nullptr), a);
    if (who) {
      Json user(rapidjson::kObjectType);
      set_string(user, "username", who->username, a);
      if (!who->uid.empty()) set_string(user, "uid", who->uid, a);
      std::vector<std::string> groups = who->groups;
      groups.push_back("system:authenticated");
      set_strings(user, "groups", groups, a);
      set_member(status, "user", std::move(user), a);
      Json audiences(rapidjson::kArrayType);
      if (const Json* wanted = at_path(body, {"spec", "audiences"})) audiences.CopyFrom(*wanted, a);
      set_member(status, "audiences", std::move(audiences), a);
    } else {
      set_string(status, "error", token.empty() ? "token is empty" : "invalid bearer token", a);
    }
  } else {
    // A SubjectAccessReview names the user; a SelfSubjectAccessReview is about the caller.
    bool self = rr.type->kind == "SelfSubjectAccessReview";
    std::string user = self ? caller.username : string_at(body, {"spec", "user"});
    bool master = false;
    if (self) {
      for (const auto& g : caller.groups) master = master || g == "system:masters";
    } else if (const Json* groups = at_path(body, {"spec", "groups"}); groups && groups->IsArray()) {
      for (const auto& g : groups->GetArray())
        master = master || (g.IsString() && std::string(g.GetString()) == "system:masters");
    }
    bool allowed = master || state.options.sar_allowed_users.count(user) > 0;
    set_member(status, "allowed", Json(allowed), a);
    // RBAC gives no reason for a denial (kubectl auth can-i then prints a bare "no").
    if (allowed)
      set_string(status, "reason", master ? "member of system:masters" : "user is allow-listed by the test kit", a);
  }
  set_member(body, "status", std::move(status), a);
  set_string(ensure_object(body, "metadata", a), "creationTimestamp", now_rfc3339(), a);
  HttpResponse response;
  response.status = 201;
  response.body = to_json(body);
  return response;
}

}  // namespace dha::testing::apiserver
