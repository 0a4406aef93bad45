#include "builtin_validation.hpp"

#include "object_meta.hpp"

#include <regex>

namespace dha::testing::apiserver {

namespace {

// metav1.MicroTime is decoded with exactly six fractional digits; metav1.Time with RFC 3339
// (fraction optional). Anything else fails decoding, before validation runs.
const char* const kMicroLayout = "2006-01-02T15:04:05.000000Z07:00";
const char* const kTimeLayout = "2006-01-02T15:04:05Z07:00";

bool parses_as(const std::string& text, bool micro) {
  static const std::regex kMicro(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$)");
  static const std::regex kTime(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$)");
  return std::regex_match(text, micro ? kMicro : kTime);
}

ApiError decode_error(const ResourceRequest& rr, const std::string& why) {
  const std::string& kind = rr.type->kind;
  return bad_request(kind + " in version \"" + rr.version->name + "\" cannot be handled as a " + kind + ": " + why);
}

// Checks the timestamp at `path` if present; returns whether it is set (non-null, non-empty).
bool check_time(const ResourceRequest& rr, const Json& object, const std::vector<std::string>& path, bool micro) {
  const Json* v = at_path(object, path);
  if (!v || v->IsNull()) return false;
  if (!v->IsString()) throw decode_error(rr, "json: cannot unmarshal " + to_json(*v) + " into a time");
  std::string text(v->GetString(), v->GetStringLength());
  if (!parses_as(text, micro))
    throw decode_error(rr, "parsing time \"" + text + "\" as \"" + (micro ? kMicroLayout : kTimeLayout) + "\"");
  return true;
}

// An int32 field: a non-integer is a decode error; returns the value (or `absent`).
int64_t check_int(const ResourceRequest& rr, const Json& object, const std::vector<std::string>& path,
                  const std::string& go_field, int64_t absent) {
  const Json* v = at_path(object, path);
  if (!v || v->IsNull()) return absent;
  if (!v->IsInt64())
    throw decode_error(
        rr, "json: cannot unmarshal " + to_json(*v) + " into Go struct field " + go_field + " of type int32");
  return v->GetInt64();
}

std::string text_at(const Json& object, const std::vector<std::string>& path) { return string_at(object, path); }

void required(std::vector<StatusCause>& causes, const std::string& field) {
  causes.push_back({"FieldValueRequired", "Required value", field});
}

void invalid(std::vector<StatusCause>& causes, const std::string& field, const std::string& value,
             const std::string& why) {
  causes.push_back({"FieldValueInvalid", "Invalid value: \"" + value + "\": " + why, field});
}

void at_most(std::vector<StatusCause>& causes, const std::string& field, const std::string& value, std::size_t limit) {
  if (value.size() > limit) invalid(causes, field, "", "can have at most " + std::to_string(limit) + " characters");
}

// A Kubernetes "qualified name" ([prefix/]name), as reportingController must be.
void check_qualified_name(std::vector<StatusCause>& causes, const std::string& field, const std::string& value) {
  static const std::regex kName("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");
  static const std::regex kPrefix("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  const std::string pattern =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  auto slash = value.find('/');
  std::string name = slash == std::string::npos ? value : value.substr(slash + 1);
  if (slash != std::string::npos) {
    std::string prefix = value.substr(0, slash);
    if (prefix.empty())
      invalid(causes, field, value, "prefix part must be non-empty");
    else if (prefix.size() > 253 || !std::regex_match(prefix, kPrefix))
      invalid(causes, field, value,
              "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
              "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
  }
  if (name.empty())
    invalid(causes, field, value, "name part must be non-empty");
  else if (name.size() > 63)
    invalid(causes, field, value, "name part must be no more than 63 characters");
  if (!std::regex_match(name, kName)) invalid(causes, field, value, "name part " + pattern);
}

// The fields of both Event versions under the names kube validates (and reports) them by.
struct EventView {
  std::string ns, involved_ns, reporting_controller, reporting_instance, action, reason, message, type;
  bool has_event_time = false, has_first = false, has_last = false, has_source = false;
  int64_t count = 0;
  const Json* series = nullptr;
  bool strict = false;               // events.k8s.io: the stricter rules for new-style Events
  std::string reporting_field_name;  // reportingComponent (core/v1) or reportingController
};

EventView view_event(const ResourceRequest& rr, const Json& e) {
  EventView v;
  v.strict = rr.type->group == "events.k8s.io";
  v.ns = text_at(e, {"metadata", "namespace"});
  v.involved_ns = text_at(e, {v.strict ? "regarding" : "involvedObject", "namespace"});
  v.reporting_field_name = v.strict ? "reportingController" : "reportingComponent";
  v.reporting_controller = text_at(e, {v.reporting_field_name});
  v.reporting_instance = text_at(e, {"reportingInstance"});
  v.action = text_at(e, {"action"});
  v.reason = text_at(e, {"reason"});
  v.message = text_at(e, {v.strict ? "note" : "message"});
  v.type = text_at(e, {"type"});
  v.has_event_time = check_time(rr, e, {"eventTime"}, true);
  v.has_first = check_time(rr, e, {v.strict ? "deprecatedFirstTimestamp" : "firstTimestamp"}, false);
  v.has_last = check_time(rr, e, {v.strict ? "deprecatedLastTimestamp" : "lastTimestamp"}, false);
  v.count = check_int(rr, e, {v.strict ? "deprecatedCount" : "count"}, "Event.count", 0);
  const Json* source = at_path(e, {v.strict ? "deprecatedSource" : "source"});
  v.has_source = source && (!text_at(*source, {"component"}).empty() || !text_at(*source, {"host"}).empty());
  v.series = at_path(e, {"series"});
  if (v.series && v.series->IsNull()) v.series = nullptr;
  if (v.series) check_time(rr, *v.series, {"lastObservedTime"}, true);
  return v;
}

// Rules every Event keeps (kube's "legacy" validation).
void validate_event_common(const EventView& v, std::vector<StatusCause>& causes) {
  if (!v.has_event_time) {
    // Old-style Events: the namespace must be the involved object's (or default for
    // cluster-scoped objects).
    bool ok = v.involved_ns.empty() ? (v.ns.empty() || v.ns == "default") : v.ns == v.involved_ns;
    if (!ok) invalid(causes, "involvedObject.namespace", v.involved_ns, "does not match event.namespace");
    return;
  }
  if (v.involved_ns.empty() && v.ns != "default" && v.ns != "kube-system")
    invalid(causes, "involvedObject.namespace", v.involved_ns, "does not match event.namespace");
  if (v.reporting_controller.empty()) required(causes, v.reporting_field_name);
  check_qualified_name(causes, v.reporting_field_name, v.reporting_controller);
  if (v.reporting_instance.empty()) required(causes, "reportingInstance");
  at_most(causes, "reportingInstance", v.reporting_instance, 128);
  if (v.action.empty()) required(causes, "action");
  at_most(causes, "action", v.action, 128);
  if (v.reason.empty()) required(causes, "reason");
  at_most(causes, "reason", v.reason, 128);
  at_most(causes, "message", v.message, 1024);
}

// events.k8s.io/v1 creates: new-style Events only.
void validate_event_strict(const EventView& v, std::vector<StatusCause>& causes) {
  if (v.series) {
    if (!at_path(*v.series, {"count"}) || !at_path(*v.series, {"count"})->IsInt64() ||
        at_path(*v.series, {"count"})->GetInt64() < 2)
      invalid(causes, "series.count", "", "should be at least 2");
    if (text_at(*v.series, {"lastObservedTime"}).empty()) required(causes, "series.lastObservedTime");
  }
  if (!v.has_event_time) required(causes, "eventTime");
  if (v.type != "Normal" && v.type != "Warning") invalid(causes, "type", "", "has invalid value: " + v.type);
  if (v.has_first) invalid(causes, "firstTimestamp", "", "needs to be unset");
  if (v.has_last) invalid(causes, "lastTimestamp", "", "needs to be unset");
  if (v.count != 0) invalid(causes, "count", "", "needs to be unset");
  if (v.has_source) invalid(causes, "source", "", "needs to be unset");
}

void validate_lease(const ResourceRequest& rr, const Json& lease, std::vector<StatusCause>& causes) {
  check_time(rr, lease, {"spec", "acquireTime"}, true);
  check_time(rr, lease, {"spec", "renewTime"}, true);
  int64_t duration = check_int(rr, lease, {"spec", "leaseDurationSeconds"}, "LeaseSpec.spec.leaseDurationSeconds", 1);
  int64_t transitions = check_int(rr, lease, {"spec", "leaseTransitions"}, "LeaseSpec.spec.leaseTransitions", 0);
  if (duration <= 0)
    causes.push_back({"FieldValueInvalid", "Invalid value: " + std::to_string(duration) + ": must be greater than 0",
                      "spec.leaseDurationSeconds"});
  if (transitions < 0)
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + std::to_string(transitions) + ": must be greater than or equal to 0",
                      "spec.leaseTransitions"});
  if (!text_at(lease, {"spec", "preferredHolder"}).empty() && text_at(lease, {"spec", "strategy"}).empty())
    causes.push_back(
        {"FieldValueForbidden", "Forbidden: may only be specified if `strategy` is defined", "spec.preferredHolder"});
}

}  // namespace

void validate_builtin(const ResourceRequest& rr, const Json& object, bool creating) {
  if (rr.type->is_crd) return;
  std::vector<StatusCause> causes;
  if (rr.type->plural == "events" && (rr.type->group.empty() || rr.type->group == "events.k8s.io")) {
    EventView v = view_event(rr, object);
    validate_event_common(v, causes);
    if (v.strict && creating) validate_event_strict(v, causes);
  } else if (rr.type->group == "coordination.k8s.io" && rr.type->plural == "leases") {
    validate_lease(rr, object, causes);
  } else {
    return;
  }
  if (causes.empty()) return;
  // Both Event groups are one kind inside kube, and its errors name it as the core Event.
  ResourceType named = *rr.type;
  if (named.plural == "events") named.group.clear();
  throw invalid_object(named, text_at(object, {"metadata", "name"}), std::move(causes));
}

}  // namespace dha::testing::apiserver
