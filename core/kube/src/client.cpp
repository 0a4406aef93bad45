#include "dha/kube/client.hpp"

#include <fmt/format.h>

#include "dha/kube/json.hpp"
#include "dha/kube/page_sizer.hpp"

namespace dha::kube {

namespace {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kMergePatch = "application/merge-patch+json";
constexpr std::string_view kJsonPatch = "application/json-patch+json";

std::string write_query(const WriteOptions& w) {
  std::string q;
  if (!w.field_manager.empty()) q += "?fieldManager=" + percent_encode(w.field_manager);
  if (w.dry_run) q += q.empty() ? "?dryRun=All" : "&dryRun=All";
  return q;
}

void check_patch_is_json_object(std::string_view patch) {
  // Fail here with a clear message rather than as a server-side 400 on a typo.
  rapidjson::Document doc = parse_json(patch);
  if (!doc.IsObject()) throw JsonError("merge patch must be a JSON object");
}

void check_patch_is_json_array(std::string_view patch) {
  rapidjson::Document doc = parse_json(patch);
  if (!doc.IsArray()) throw JsonError("JSON patch must be an array of operations");
}

}  // namespace

Client::Client(Config config) : transport_(std::move(config)) {}

HttpResponse Client::perform(const std::string& method, const std::string& path, std::string body,
                             std::string content_type) {
  HttpRequest req;
  if (write_fence_ && method != "GET") req.deadline = write_fence_();
  req.method = method;
  req.path = path;
  req.body = std::move(body);
  req.content_type = std::move(content_type);
  HttpResponse resp = transport_.perform(req);
  if (resp.status < 200 || resp.status >= 300)
    throw error_from_response(resp.status, resp.body, resp.retry_after_seconds);
  return resp;
}

namespace {

rapidjson::Document parse_response(const HttpResponse& resp, const std::string& method, const std::string& path) {
  if (resp.body.empty()) {
    rapidjson::Document empty;
    empty.SetObject();
    return empty;
  }
  try {
    return parse_json(resp.body);
  } catch (const JsonError& e) {
    throw ApiError(Reason::InternalError, resp.status,
                   fmt::format("{} {}: response is not JSON: {}", method, path, e.what()));
  }
}

}  // namespace

rapidjson::Document Client::send(const std::string& method, const std::string& path, std::string body,
                                 std::string content_type) {
  return parse_response(perform(method, path, std::move(body), std::move(content_type)), method, path);
}

rapidjson::Document Client::get(const ResourceRef& ref) {
  if (ref.name.empty()) throw std::invalid_argument("get: the reference has no name");
  return send("GET", resource_path(ref));
}

std::optional<rapidjson::Document> Client::get_if_exists(const ResourceRef& ref) {
  try {
    return get(ref);
  } catch (const ApiError& e) {
    if (e.reason() == Reason::NotFound) return std::nullopt;
    throw;
  }
}

ListPage Client::list(const ResourceRef& collection, const ListOptions& opts) {
  const std::string path = resource_path(collection.collection()) + list_query(opts, false);
  std::size_t bytes = 0;
  rapidjson::Document list = [&] {
    const HttpResponse resp = perform("GET", path);
    bytes = resp.body.size();
    return parse_response(resp, "GET", path);
  }();  // the text is let go before the page is handed on
  ListPage page{std::move(list), {}, {}, bytes};
  page.resource_version = string_at(page.list, {"metadata", "resourceVersion"});
  page.continue_token = string_at(page.list, {"metadata", "continue"});
  if (!page.list.IsObject() || !page.list.HasMember("items") || !page.list["items"].IsArray())
    throw ApiError(Reason::InternalError, 200,
                   fmt::format("list {}: response has no items array", resource_path(collection.collection())));
  return page;
}

ListPage Client::list_all(const ResourceRef& collection, ListOptions opts) {
  ListPage all;
  list_pages(collection, std::move(opts), [&all](ListPage& page, bool from_start) {
    if (from_start) {
      all = std::move(page);
      return;
    }
    auto& alloc = all.list.GetAllocator();
    for (auto& item : page.list["items"].GetArray()) {
      rapidjson::Value copy(item, alloc);
      all.list["items"].PushBack(copy, alloc);
    }
  });
  all.continue_token.clear();
  if (auto* meta = find_path(all.list, {"metadata"}); meta != nullptr && meta->IsObject())
    all.list["metadata"].RemoveMember("continue");
  return all;
}

std::string Client::list_pages(const ResourceRef& collection, ListOptions opts,
                               const std::function<void(ListPage& page, bool from_start)>& on_page) {
  if (opts.limit <= 0) opts.limit = 500;
  for (int attempt = 0;; ++attempt) {
    PageSizer sizer(opts.limit, opts.page_bytes);
    ListOptions first_opts = opts;
    first_opts.continue_token.clear();
    first_opts.limit = sizer.next();
    try {
      ListPage first = list(collection, first_opts);
      std::string snapshot = first.resource_version;
      std::string token = first.continue_token;
      sizer.observe(first.list["items"].Size(), first.bytes);
      on_page(first, true);
      while (!token.empty()) {
        ListOptions next = opts;
        next.continue_token = token;
        next.resource_version.clear();  // the token pins the snapshot
        next.limit = sizer.next();      // a continued list may ask for another count per page
        ListPage page = list(collection, next);
        token = page.continue_token;
        sizer.observe(page.list["items"].Size(), page.bytes);
        on_page(page, false);
      }
      return snapshot;
    } catch (const ApiError& e) {
      // An expired continue token (the snapshot was compacted): start over once.
      if (e.reason() != Reason::Gone || attempt > 0) throw;
    }
  }
}

rapidjson::Document Client::create(const ResourceRef& collection, const rapidjson::Value& object,
                                   const WriteOptions& w) {
  ResourceRef target = collection.collection();
  if (target.namespace_.empty()) target.namespace_ = namespace_of(object);
  return send("POST", resource_path(target) + write_query(w), to_json(object), std::string(kJson));
}

rapidjson::Document Client::update(const ResourceRef& ref, const rapidjson::Value& object, const WriteOptions& w) {
  return send("PUT", resource_path(ref) + write_query(w), to_json(object), std::string(kJson));
}

rapidjson::Document Client::merge_patch(const ResourceRef& ref, std::string_view patch, const WriteOptions& w) {
  check_patch_is_json_object(patch);
  return send("PATCH", resource_path(ref) + write_query(w), std::string(patch), std::string(kMergePatch));
}

rapidjson::Document Client::update_status(const ResourceRef& ref, const rapidjson::Value& object,
                                          const WriteOptions& w) {
  return send("PUT", resource_path(ref, "status") + write_query(w), to_json(object), std::string(kJson));
}

rapidjson::Document Client::patch_status(const ResourceRef& ref, std::string_view patch, const WriteOptions& w) {
  check_patch_is_json_object(patch);
  return send("PATCH", resource_path(ref, "status") + write_query(w), std::string(patch), std::string(kMergePatch));
}

rapidjson::Document Client::json_patch(const ResourceRef& ref, std::string_view patch, std::string_view subresource,
                                       const WriteOptions& w) {
  if (subresource != "" && subresource != "status" && subresource != "scale")
    throw std::invalid_argument("json_patch: unknown subresource \"" + std::string(subresource) + "\"");
  check_patch_is_json_array(patch);
  return send("PATCH", resource_path(ref, subresource) + write_query(w), std::string(patch), std::string(kJsonPatch));
}

rapidjson::Document Client::get_scale(const ResourceRef& ref) { return send("GET", resource_path(ref, "scale")); }

rapidjson::Document Client::patch_scale(const ResourceRef& ref, std::string_view patch, const WriteOptions& w) {
  check_patch_is_json_object(patch);
  return send("PATCH", resource_path(ref, "scale") + write_query(w), std::string(patch), std::string(kMergePatch));
}

void Client::remove(const ResourceRef& ref, const DeleteOptions& d) {
  if (ref.name.empty()) throw std::invalid_argument("remove: the reference has no name");
  std::string body;
  if (!d.propagation_policy.empty() || !d.precondition_uid.empty() || !d.precondition_resource_version.empty()) {
    rapidjson::Document opts;
    opts.SetObject();
    auto& a = opts.GetAllocator();
    opts.AddMember("apiVersion", "v1", a);
    opts.AddMember("kind", "DeleteOptions", a);
    if (!d.propagation_policy.empty())
      opts.AddMember("propagationPolicy", rapidjson::Value(d.propagation_policy, a), a);
    if (!d.precondition_uid.empty() || !d.precondition_resource_version.empty()) {
      rapidjson::Value pre(rapidjson::kObjectType);
      if (!d.precondition_uid.empty()) pre.AddMember("uid", rapidjson::Value(d.precondition_uid, a), a);
      if (!d.precondition_resource_version.empty())
        pre.AddMember("resourceVersion", rapidjson::Value(d.precondition_resource_version, a), a);
      opts.AddMember("preconditions", pre, a);
    }
    body = to_json(opts);
  }
  std::string content_type = body.empty() ? std::string() : std::string(kJson);
  send("DELETE", resource_path(ref), std::move(body), std::move(content_type));
}

rapidjson::Document Client::update_with_retry(const ResourceRef& ref,
                                              const std::function<bool(rapidjson::Document&)>& mutate, int attempts,
                                              const WriteOptions& w) {
  for (int i = 1;; ++i) {
    rapidjson::Document current = get(ref);
    if (!mutate(current)) return current;
    try {
      return update(ref, current, w);
    } catch (const ApiError& e) {
      if (e.reason() != Reason::Conflict || i >= attempts) throw;
    }
  }
}

void Client::watch(const ResourceRef& collection, const WatchOptions& opts,
                   const std::function<bool(WatchEvent&&)>& on_event, const std::atomic<bool>* stop) {
  ListOptions q;
  q.label_selector = opts.label_selector;
  q.field_selector = opts.field_selector;
  q.resource_version = opts.resource_version;
  q.allow_watch_bookmarks = opts.allow_bookmarks;
  q.timeout_seconds = opts.timeout_seconds;
  HttpRequest req;
  req.path = resource_path(collection.collection()) + list_query(q, true);

  WatchDecoder decoder;
  std::optional<ApiError> stream_error;
  std::exception_ptr callback_error;
  // Runs inside a curl callback: nothing may propagate through C frames, so exceptions are
  // parked and rethrown after the transfer.
  auto on_data = [&](std::string_view chunk) {
    try {
      return decoder.feed(chunk, [&](WatchEvent&& ev) {
        if (ev.type == WatchEventType::Error) {
          const rapidjson::Value* code = find_path(ev.object, {"code"});
          const int status = code != nullptr && code->IsInt() ? code->GetInt() : 500;
          stream_error = error_from_response(status, to_json(ev.object));
          return false;
        }
        return on_event(std::move(ev));
      });
    } catch (...) {
      callback_error = std::current_exception();
      return false;
    }
  };
  // The server ends the stream at timeoutSeconds; the client-side bound only catches a
  // server that never does.
  const auto bound =
      std::chrono::milliseconds((opts.timeout_seconds > 0 ? opts.timeout_seconds : 1800) * 1000LL + 30000);
  HttpResponse resp = transport_.stream(req, on_data, stop, bound, opts.idle_timeout);
  if (callback_error) std::rethrow_exception(callback_error);
  if (stop != nullptr && stop->load()) return;  // cut by us: not an error, whatever the status
  if (stream_error) throw *stream_error;
  if (resp.status < 200 || resp.status >= 300)
    throw error_from_response(resp.status, resp.body, resp.retry_after_seconds);
}

rapidjson::Document Client::get_path(const std::string& path) {
  if (path.empty() || path.front() != '/') throw std::invalid_argument("get_path: path must start with '/'");
  return send("GET", path);
}

}  // namespace dha::kube
