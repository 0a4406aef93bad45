#include "admission.hpp"

#include "object_meta.hpp"
#include "selectors.hpp"

#include <curl/curl.h>

#include <algorithm>

namespace dha::testing::apiserver {

namespace {

bool list_matches(const Json* list, const std::string& value) {
  if (!list || !list->IsArray()) return false;
  for (const auto& v : list->GetArray()) {
    if (!v.IsString()) continue;
    std::string s = v.GetString();
    if (s == "*" || s == value) return true;
  }
  return false;
}

// rules[].resources entries: "plural", "plural/sub", "*", "*/*", "plural/*", "*/sub".
bool resource_matches(const Json* list, const std::string& plural, const std::string& sub) {
  if (!list || !list->IsArray()) return false;
  for (const auto& v : list->GetArray()) {
    if (!v.IsString()) continue;
    std::string s = v.GetString();
    auto slash = s.find('/');
    std::string res = s.substr(0, slash);
    std::string want_sub = slash == std::string::npos ? "" : s.substr(slash + 1);
    if (res != "*" && res != plural) continue;
    if (sub.empty() ? want_sub.empty() : (want_sub == "*" || want_sub == sub)) return true;
  }
  return false;
}

bool rule_matches(const Json& rule, const AdmissionAttributes& attrs) {
  if (!list_matches(member(rule, "operations"), attrs.operation)) return false;
  if (!list_matches(member(rule, "apiGroups"), attrs.type->group)) return false;
  if (!list_matches(member(rule, "apiVersions"), attrs.version)) return false;
  if (!resource_matches(member(rule, "resources"), attrs.type->plural, attrs.subresource)) return false;
  std::string scope = string_at(rule, {"scope"}, "*");
  if (scope == "Namespaced" && !attrs.type->namespaced) return false;
  if (scope == "Cluster" && attrs.type->namespaced) return false;
  return true;
}

const Json* labels_of(const ObjectPtr& obj) { return obj ? at_path(*obj, {"metadata", "labels"}) : nullptr; }

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct CallResult {
  bool ok = false;
  std::string error;  // transport or protocol failure
  std::string body;
};

CallResult post(const std::string& url, const std::string& connect_to, const std::string& ca_pem, long timeout_seconds,
                const std::string& payload) {
  CallResult result;
  CURL* curl = curl_easy_init();
  if (!curl) {
    result.error = "curl_easy_init failed";
    return result;
  }
  struct curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  struct curl_slist* connect = nullptr;
  if (!connect_to.empty()) connect = curl_slist_append(connect, connect_to.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_seconds * 1000);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  if (connect) curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect);
  if (!ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(ca_pem.data()), ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  }
  CURLcode code = curl_easy_perform(curl);
  long http_code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_code);
  if (code == CURLE_OPERATION_TIMEDOUT) {
    result.error = "Post \"" + url + "\": context deadline exceeded";
  } else if (code != CURLE_OK) {
    result.error = "Post \"" + url + "\": " + curl_easy_strerror(code);
  } else if (http_code != 200) {
    result.error = "expected webhook response of 200, got " + std::to_string(http_code);
  } else {
    result.ok = true;
  }
  curl_slist_free_all(headers);
  curl_slist_free_all(connect);
  curl_easy_cleanup(curl);
  return result;
}

std::string review_json(const Json& webhook, const AdmissionAttributes& attrs, const std::string& uid) {
  JsonDoc review(rapidjson::kObjectType);
  auto& a = review.GetAllocator();
  set_string(review, "apiVersion", "admission.k8s.io/v1", a);
  set_string(review, "kind", "AdmissionReview", a);
  Json req(rapidjson::kObjectType);
  set_string(req, "uid", uid, a);
  Json kind(rapidjson::kObjectType);
  bool own_kind = attrs.object_kind.empty();
  set_string(kind, "group", own_kind ? attrs.type->group : attrs.object_group, a);
  set_string(kind, "version", own_kind ? attrs.version : attrs.object_version, a);
  set_string(kind, "kind", own_kind ? attrs.type->kind : attrs.object_kind, a);
  Json resource(rapidjson::kObjectType);
  set_string(resource, "group", attrs.type->group, a);
  set_string(resource, "version", attrs.version, a);
  set_string(resource, "resource", attrs.type->plural, a);
  set_member(req, "kind", Json(kind, a), a);
  set_member(req, "resource", Json(resource, a), a);
  set_member(req, "requestKind", std::move(kind), a);
  set_member(req, "requestResource", std::move(resource), a);
  if (!attrs.subresource.empty()) {
    set_string(req, "subResource", attrs.subresource, a);
    set_string(req, "requestSubResource", attrs.subresource, a);
  }
  set_string(req, "name", attrs.name, a);
  if (!attrs.ns.empty()) set_string(req, "namespace", attrs.ns, a);
  set_string(req, "operation", attrs.operation, a);
  Json user(rapidjson::kObjectType);
  set_string(user, "username", attrs.user.username, a);
  if (!attrs.user.uid.empty()) set_string(user, "uid", attrs.user.uid, a);
  Json groups(rapidjson::kArrayType);
  for (const auto& g : attrs.user.groups) groups.PushBack(Json(g.c_str(), a), a);
  set_member(user, "groups", std::move(groups), a);
  set_member(req, "userInfo", std::move(user), a);
  set_member(req, "object", attrs.object ? Json(*attrs.object, a) : Json(), a);
  set_member(req, "oldObject", attrs.old_object ? Json(*attrs.old_object, a) : Json(), a);
  set_member(req, "dryRun", Json(attrs.dry_run), a);
  Json options(rapidjson::kObjectType);
  set_string(options, "apiVersion", "meta.k8s.io/v1", a);
  set_string(options, "kind",
             attrs.operation == "CREATE"   ? "CreateOptions"
             : attrs.operation == "UPDATE" ? "UpdateOptions"
                                           : "DeleteOptions",
             a);
  set_member(req, "options", std::move(options), a);
  set_member(review, "request", std::move(req), a);
  (void)webhook;
  return to_json(review);
}

}  // namespace

std::vector<MatchedWebhook> match_webhooks(const ServerState& state, const AdmissionAttributes& attrs) {
  std::vector<MatchedWebhook> out;
  auto ns_type = state.types.find("/namespaces");
  ObjectPtr ns_obj =
      attrs.ns.empty() || ns_type == state.types.end() ? nullptr : state.store.get("/namespaces", "", attrs.ns);
  for (const auto& config : state.store.list("admissionregistration.k8s.io/validatingwebhookconfigurations", "")) {
    const Json* hooks = member(*config, "webhooks");
    if (!hooks || !hooks->IsArray()) continue;
    for (const auto& hook : hooks->GetArray()) {
      const Json* rules = member(hook, "rules");
      bool any = false;
      if (rules && rules->IsArray())
        for (const auto& rule : rules->GetArray()) any = any || rule_matches(rule, attrs);
      if (!any) continue;
      if (const Json* sel = member(hook, "objectSelector"); sel && sel->IsObject()) {
        auto selector = LabelSelector::from_json(*sel);
        if (!selector.matches(labels_of(attrs.object)) && !selector.matches(labels_of(attrs.old_object))) continue;
      }
      if (const Json* sel = member(hook, "namespaceSelector"); sel && sel->IsObject() && attrs.type->namespaced) {
        auto selector = LabelSelector::from_json(*sel);
        if (!selector.matches(labels_of(ns_obj))) continue;
      }
      out.push_back({clone(hook)});
    }
  }
  return out;
}

void call_webhooks(const std::vector<MatchedWebhook>& hooks, const AdmissionAttributes& attrs,
                   const ApiServerOptions& options, std::vector<std::string>& warnings) {
  for (const auto& matched : hooks) {
    const Json& hook = *matched.webhook;
    std::string name = string_at(hook, {"name"});
    std::string policy = string_at(hook, {"failurePolicy"}, "Fail");
    long timeout = 10;
    if (const Json* t = member(hook, "timeoutSeconds"); t && t->IsInt()) timeout = t->GetInt();
    std::string ca = base64_decode(string_at(hook, {"clientConfig", "caBundle"}));
    std::string url = string_at(hook, {"clientConfig", "url"});
    std::string connect_to;
    if (url.empty()) {
      std::string svc_ns = string_at(hook, {"clientConfig", "service", "namespace"});
      std::string svc_name = string_at(hook, {"clientConfig", "service", "name"});
      std::string path = string_at(hook, {"clientConfig", "service", "path"});
      int port = 443;
      if (const Json* p = at_path(hook, {"clientConfig", "service", "port"}); p && p->IsInt()) port = p->GetInt();
      std::string host = svc_name + "." + svc_ns + ".svc";
      url = "https://" + host + ":" + std::to_string(port) + path;
      auto mapped = options.webhook_services.find(svc_ns + "/" + svc_name);
      if (mapped != options.webhook_services.end())
        connect_to = host + ":" + std::to_string(port) + ":127.0.0.1:" + std::to_string(mapped->second);
      else
        connect_to = host + ":" + std::to_string(port) +
                     ":127.0.0.1:1";  // no endpoints: fails fast, like a Service without pods
    }
    std::string uid = new_uid();
    CallResult result = post(url, connect_to, ca, timeout, review_json(hook, attrs, uid));
    JsonDoc response;
    if (result.ok) {
      response.Parse(result.body.c_str());
      if (response.HasParseError() || !member(response, "response")) {
        result.ok = false;
        result.error = "received invalid webhook response: " + result.body.substr(0, 200);
      } else if (string_at(response, {"response", "uid"}) != uid) {
        result.ok = false;
        result.error =
            "expected response.uid=\"" + uid + "\", got \"" + string_at(response, {"response", "uid"}) + "\"";
      }
    }
    if (!result.ok) {
      if (policy == "Ignore") continue;
      throw internal_error("failed calling webhook \"" + name + "\": failed to call webhook: " + result.error);
    }
    if (const Json* w = at_path(response, {"response", "warnings"}); w && w->IsArray())
      for (const auto& s : w->GetArray())
        if (s.IsString()) warnings.emplace_back(s.GetString());
    const Json* allowed = at_path(response, {"response", "allowed"});
    if (allowed && allowed->IsBool() && allowed->GetBool()) continue;
    // As kube-apiserver turns a denial into an error: the webhook's code (400 when it gives
    // none below 400) and reason as they are; its message, else its reason, after who denied.
    int code = 400;
    if (const Json* c = at_path(response, {"response", "status", "code"}); c && c->IsInt() && c->GetInt() >= 400)
      code = c->GetInt();
    std::string reason = string_at(response, {"response", "status", "reason"});
    std::string message = string_at(response, {"response", "status", "message"});
    if (message.empty()) message = reason;
    std::string full = "admission webhook \"" + name + "\" denied the request" +
                       (message.empty() ? " without explanation" : ": " + message);
    throw ApiError(code, reason, full);
  }
}

}  // namespace dha::testing::apiserver
