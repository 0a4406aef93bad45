#include "json_parse.hpp"

#include "dha/admission/go_float_format.hpp"
#include "dha/admission/ownership_policy.hpp"
#include "dha/sdk/json.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <utility>
#include <vector>

namespace dha::admission {

namespace {

using rapidjson::Value;

const Value* member(const Value* object, std::string_view name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  auto it = object->FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
  return it == object->MemberEnd() ? nullptr : &it->value;
}

std::string_view marker_of(const Value& object) { return sdk::json::annotation(object, managed_by_annotation); }

const Value* replicas_of(const Value& object) { return member(member(member(&object, "spec"), "values"), "replicas"); }

// Deep equality without recursion (a hostile value may be nested arbitrarily deep). Numbers
// compare as float64, as the reference did.
bool json_equal(const Value& a, const Value& b) {
  std::vector<std::pair<const Value*, const Value*>> pending{{&a, &b}};
  while (!pending.empty()) {
    auto [x, y] = pending.back();
    pending.pop_back();
    if (x->IsNumber() && y->IsNumber()) {
      if (x->GetDouble() != y->GetDouble()) return false;
      continue;
    }
    if (x->GetType() != y->GetType()) return false;
    if (x->IsString()) {
      if (std::string_view(x->GetString(), x->GetStringLength()) !=
          std::string_view(y->GetString(), y->GetStringLength()))
        return false;
    } else if (x->IsArray()) {
      if (x->Size() != y->Size()) return false;
      for (rapidjson::SizeType i = 0; i < x->Size(); ++i) pending.emplace_back(&(*x)[i], &(*y)[i]);
    } else if (x->IsObject()) {
      if (x->MemberCount() != y->MemberCount()) return false;
      for (auto it = x->MemberBegin(); it != x->MemberEnd(); ++it) {
        auto other = y->FindMember(it->name);
        if (other == y->MemberEnd()) return false;
        pending.emplace_back(&it->value, &other->value);
      }
    }
    // null, true and false are equal once their types are.
  }
  return true;
}

bool replicas_differ(const Value* old_value, const Value* new_value) {
  if (old_value == nullptr || new_value == nullptr) return old_value != new_value;
  return !json_equal(*old_value, *new_value);
}

// Go's %q for the names we print: quotes, backslashes and control bytes are escaped. Runs
// of plain bytes are appended in bulk.
void append_go_quoted(std::string& out, std::string_view text) {
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\') continue;
    out.append(text, run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      }
    }
  }
  out.append(text, run, text.size() - run);
  out += '"';
}

std::string go_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  append_go_quoted(out, text);
  return out;
}

// How a replicas value appears in the message. Containers are summarised rather than
// serialised: the message must stay short whatever a writer put there.
std::string render(const Value* value) {
  constexpr std::size_t max_string = 64;
  if (value == nullptr) return "<none>";
  if (value->IsNumber()) return format_go_float(value->GetDouble());
  if (value->IsString()) {
    std::string_view s(value->GetString(), value->GetStringLength());
    if (s.size() > max_string) return go_quote(s.substr(0, max_string)) + "...";
    return go_quote(s);
  }
  if (value->IsBool()) return value->GetBool() ? "true" : "false";
  if (value->IsNull()) return "null";
  return value->IsArray() ? "<array>" : "<object>";
}

OwnershipVerdict allow() { return {}; }

// HelmRelease spec fields besides values.replicas that decide how many instances run.
constexpr const char* kCountBearingFields[] = {"postRenderers", "valuesFrom", "chart", "chartRef"};

// The denial up to "manual control ("; the caller appends what was attempted and the ")".
OwnershipVerdict deny(std::string_view marker, std::size_t expected_rest) {
  OwnershipVerdict verdict;
  verdict.allowed = false;
  verdict.code = 403;
  verdict.reason = "Forbidden";
  auto& m = verdict.message;
  m.reserve(120 + marker.size() + expected_rest);
  m += "replicas of this database is managed by DatabaseHorizontalAutoscaler ";
  append_go_quoted(m, marker);
  m += "; delete the DHA to regain manual control (";
  return verdict;
}

}  // namespace

OwnershipVerdict evaluate_ownership(const Value* old_object, const Value* new_object, std::string_view username,
                                    const std::vector<std::string>& allowed_users) {
  const bool has_old = old_object != nullptr && old_object->IsObject();
  const bool has_new = new_object != nullptr && new_object->IsObject();
  if (!has_old && !has_new) return allow();

  const std::string_view old_marker = has_old ? marker_of(*old_object) : std::string_view();
  const std::string_view new_marker = has_new ? marker_of(*new_object) : std::string_view();
  if (old_marker.empty() && new_marker.empty()) return allow();

  const auto listed = [username](const auto& users) {
    return std::find(std::begin(users), std::end(users), username) != std::end(users);
  };
  if (listed(allowed_users)) return allow();

  const std::string_view managed_by = old_marker.empty() ? new_marker : old_marker;
  const auto by_user = [&](OwnershipVerdict& verdict) {
    verdict.message += " by ";
    append_go_quoted(verdict.message, username);
    verdict.message += ')';
    return std::move(verdict);
  };
  if (!has_old) {  // a create: only the apps API projects the marker
    auto verdict = deny(managed_by, 64 + username.size());
    verdict.message += "attempted creation of a managed release";
    return by_user(verdict);
  }
  if (!has_new) {  // a delete: a release re-created without its marker would escape the DHA
    if (listed(kubernetes_deleters)) return allow();
    auto verdict = deny(managed_by, 64 + username.size());
    verdict.message += "attempted deletion";
    return by_user(verdict);
  }

  const Value* old_replicas = replicas_of(*old_object);
  const Value* new_replicas = replicas_of(*new_object);
  if (replicas_differ(old_replicas, new_replicas)) {
    auto verdict = deny(managed_by, 64 + username.size());
    verdict.message += "attempted change ";
    verdict.message += render(old_replicas);
    verdict.message += " -> ";
    verdict.message += render(new_replicas);
    return by_user(verdict);
  }
  // What else sets the instance count of a release: a post-renderer that patches the rendered
  // manifests, values read from elsewhere, or another chart (source or version) whose defaults
  // differ. None of them is the apps API's to leave to a tenant on a managed release.
  for (const char* field : kCountBearingFields) {
    const Value* before = member(member(old_object, "spec"), field);
    const Value* after = member(member(new_object, "spec"), field);
    if (!replicas_differ(before, after)) continue;
    auto verdict = deny(managed_by, 64 + username.size());
    verdict.message += "attempted change of spec.";
    verdict.message += field;
    return by_user(verdict);
  }
  if (!old_marker.empty() && new_marker != old_marker) {
    auto verdict = deny(managed_by, 64 + new_marker.size() + username.size());
    if (new_marker.empty()) {
      verdict.message += "attempted removal of the managed-by marker";
    } else {
      verdict.message += "attempted change of the managed-by marker to ";
      append_go_quoted(verdict.message, new_marker);
    }
    return by_user(verdict);
  }
  return allow();
}

OwnershipVerdict evaluate_ownership(std::string_view old_json, std::string_view new_json, std::string_view username,
                                    const std::vector<std::string>& allowed_users) {
  rapidjson::Document old_doc;
  rapidjson::Document new_doc;
  if (!detail::parse_json(old_doc, old_json) || !detail::parse_json(new_doc, new_json)) return allow();
  return evaluate_ownership(&old_doc, &new_doc, username, allowed_users);
}

}  // namespace dha::admission
