#include "dha/kube/event_recorder.hpp"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "dha/kube/json.hpp"

namespace dha::kube {

std::string format_time(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

ObjectReference ObjectReference::of(const rapidjson::Value& obj) {
  return {string_at(obj, {"apiVersion"}), string_at(obj, {"kind"}), namespace_of(obj), name_of(obj), uid_of(obj),
          resource_version_of(obj)};
}

EventRecorder::EventRecorder(Client& client, std::string component, std::string host, const Clock& clock,
                             EventSpamFilterOptions spam)
    : client_(client), component_(std::move(component)), host_(std::move(host)), clock_(clock), spam_(clock, spam) {}

std::size_t EventRecorder::dropped() const {
  std::lock_guard lock(mu_);
  return spam_.dropped();
}

namespace {

std::string_view type_text(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

}  // namespace

bool EventRecorder::create(const ObjectReference& involved, EventType type, std::string_view reason,
                           const std::string& message, Seen& seen, const std::string& now) {
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.wall_now().time_since_epoch()).count();
  // client-go names events "<object>.<unix nanos in hex>"; keep the whole name within 253.
  const std::string suffix = fmt::format(".{:x}", static_cast<std::uint64_t>(nanos) + next_order_);
  const std::string base = involved.name.substr(0, 253 - suffix.size());
  seen.event_name = base + suffix;
  seen.event_namespace = involved.namespace_.empty() ? "default" : involved.namespace_;
  seen.count = 1;
  seen.first_timestamp = now;

  rapidjson::Document ev;
  ev.SetObject();
  auto& a = ev.GetAllocator();
  auto str = [&](std::string_view s) { return rapidjson::Value(s.data(), rapidjson::SizeType(s.size()), a); };
  ev.AddMember("apiVersion", "v1", a);
  ev.AddMember("kind", "Event", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", str(seen.event_name), a);
  meta.AddMember("namespace", str(seen.event_namespace), a);
  ev.AddMember("metadata", meta, a);
  rapidjson::Value obj(rapidjson::kObjectType);
  obj.AddMember("apiVersion", str(involved.api_version), a);
  obj.AddMember("kind", str(involved.kind), a);
  if (!involved.namespace_.empty()) obj.AddMember("namespace", str(involved.namespace_), a);
  obj.AddMember("name", str(involved.name), a);
  if (!involved.uid.empty()) obj.AddMember("uid", str(involved.uid), a);
  if (!involved.resource_version.empty()) obj.AddMember("resourceVersion", str(involved.resource_version), a);
  ev.AddMember("involvedObject", obj, a);
  ev.AddMember("reason", str(reason), a);
  ev.AddMember("message", str(message), a);
  ev.AddMember("type", str(type_text(type)), a);
  ev.AddMember("count", 1, a);
  ev.AddMember("firstTimestamp", str(now), a);
  ev.AddMember("lastTimestamp", str(now), a);
  rapidjson::Value source(rapidjson::kObjectType);
  source.AddMember("component", str(component_), a);
  if (!host_.empty()) source.AddMember("host", str(host_), a);
  ev.AddMember("source", source, a);
  ev.AddMember("reportingComponent", str(component_), a);
  ev.AddMember("reportingInstance", str(host_.empty() ? component_ : host_), a);
  client_.create(resources::events(seen.event_namespace), ev);
  return true;
}

bool EventRecorder::record(const ObjectReference& involved, EventType type, std::string_view reason,
                           std::string_view message) {
  std::string text(message.substr(0, kMaxMessage));
  const std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", involved.namespace_, involved.kind,
                                      involved.name, involved.uid, type_text(type), reason, text);
  const std::string now = format_time(clock_.wall_now());
  std::lock_guard lock(mu_);
  const std::string object =
      fmt::format("{}\x1f{}\x1f{}\x1f{}", involved.namespace_, involved.kind, involved.name, involved.uid);
  if (!spam_.allow(object)) {
    spdlog::debug("event {} {} for {}/{}: held back by the spam filter", type_text(type), reason, involved.namespace_,
                  involved.name);
    return false;
  }
  try {
    auto it = seen_.find(key);
    if (it != seen_.end()) {
      Seen& seen = it->second;
      try {
        const std::string patch = fmt::format(R"({{"count":{},"lastTimestamp":"{}"}})", seen.count + 1, now);
        client_.merge_patch(resources::events(seen.event_namespace).named(seen.event_name), patch);
        ++seen.count;
        seen.order = next_order_++;
        return true;
      } catch (const ApiError& e) {
        if (e.reason() != Reason::NotFound) throw;
        // The Event expired (events have a TTL): start a new series.
      }
      return create(involved, type, reason, text, seen, now);
    }
    if (seen_.size() >= kMaxTracked) {
      auto oldest = std::min_element(seen_.begin(), seen_.end(),
                                     [](const auto& x, const auto& y) { return x.second.order < y.second.order; });
      seen_.erase(oldest);
    }
    Seen fresh;
    fresh.order = next_order_++;
    create(involved, type, reason, text, fresh, now);
    seen_.emplace(key, std::move(fresh));
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("event {} {} for {}/{}: not recorded: {}", type_text(type), reason, involved.namespace_, involved.name,
                 e.what());
    return false;
  }
}

}  // namespace dha::kube
