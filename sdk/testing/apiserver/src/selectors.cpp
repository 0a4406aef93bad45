#include "selectors.hpp"

#include "api_error.hpp"

#include <algorithm>

namespace dha::testing::apiserver {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// Splits on commas that are not inside parentheses ("a in (x,y),b" -> two terms).
std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

ApiError parse_error(const std::string& term, const std::string& why) {
  return bad_request("unable to parse requirement: " + why + " (in \"" + term + "\")");
}

Requirement parse_term(const std::string& term) {
  Requirement r;
  if (term.empty()) throw parse_error(term, "found '', expected: identifier");
  if (term[0] == '!') {
    r.key = trim(term.substr(1));
    r.op = "!exists";
    return r;
  }
  for (const char* set_op : {" notin ", " in "}) {
    auto pos = term.find(set_op);
    if (pos == std::string::npos) continue;
    r.key = trim(term.substr(0, pos));
    r.op = trim(set_op);
    std::string rest = trim(term.substr(pos + std::string(set_op).size()));
    if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')')
      throw parse_error(term, "found '" + rest + "', expected: '('");
    std::string inner = rest.substr(1, rest.size() - 2);
    std::string cur;
    for (char c : inner + ",") {
      if (c == ',') {
        r.values.push_back(trim(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    return r;
  }
  for (const char* op : {"!=", "==", "="}) {
    auto pos = term.find(op);
    if (pos == std::string::npos) continue;
    r.key = trim(term.substr(0, pos));
    r.op = std::string(op) == "!=" ? "!=" : "=";
    r.values.push_back(trim(term.substr(pos + std::string(op).size())));
    if (r.key.empty()) throw parse_error(term, "found '" + std::string(op) + "', expected: identifier");
    return r;
  }
  if (term.find_first_of(" ()") != std::string::npos) throw parse_error(term, "found unexpected token");
  r.key = term;
  r.op = "exists";
  return r;
}

bool requirement_matches(const Requirement& r, const std::string* value) {
  if (r.op == "exists") return value != nullptr;
  if (r.op == "!exists") return value == nullptr;
  if (r.op == "=") return value && *value == r.values[0];
  if (r.op == "!=") return !value || *value != r.values[0];
  bool in_set = value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  return r.op == "in" ? in_set : !in_set;
}

std::string scalar_text(const Json& v) {
  if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) return std::to_string(v.GetDouble());
  return "";
}

// Selecting on a field the real server does not index is a 400 there, so a client that works
// here must not depend on it.
void check_field_label(const std::string& label, const ResourceType& type) {
  bool namespace_ok = type.namespaced || !type.own_field_labels;
  if (label == "metadata.name" || (label == "metadata.namespace" && namespace_ok)) return;
  if (std::find(type.field_labels.begin(), type.field_labels.end(), label) != type.field_labels.end()) return;
  if (type.own_field_labels) throw bad_request("field label not supported: " + label);
  throw bad_request("\"" + label + "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
}

}  // namespace

LabelSelector LabelSelector::parse(const std::string& text) {
  LabelSelector s;
  for (const auto& term : split_terms(text)) s.requirements_.push_back(parse_term(term));
  return s;
}

LabelSelector LabelSelector::from_json(const Json& selector) {
  LabelSelector s;
  if (const Json* ml = member(selector, "matchLabels"); ml && ml->IsObject())
    for (auto it = ml->MemberBegin(); it != ml->MemberEnd(); ++it)
      s.requirements_.push_back({it->name.GetString(), "=", {scalar_text(it->value)}});
  if (const Json* me = member(selector, "matchExpressions"); me && me->IsArray()) {
    for (const auto& e : me->GetArray()) {
      Requirement r;
      r.key = string_at(e, {"key"});
      std::string op = string_at(e, {"operator"});
      r.op = op == "In" ? "in" : op == "NotIn" ? "notin" : op == "Exists" ? "exists" : "!exists";
      if (const Json* vals = member(e, "values"); vals && vals->IsArray())
        for (const auto& v : vals->GetArray()) r.values.push_back(scalar_text(v));
      s.requirements_.push_back(std::move(r));
    }
  }
  return s;
}

bool LabelSelector::matches(const Json* labels) const {
  for (const auto& r : requirements_) {
    const Json* v = labels ? member(*labels, r.key) : nullptr;
    std::string text = v ? scalar_text(*v) : "";
    if (!requirement_matches(r, v ? &text : nullptr)) return false;
  }
  return true;
}

FieldSelector FieldSelector::parse(const std::string& text, const ResourceType& type) {
  FieldSelector s;
  for (const auto& term : split_terms(text)) {
    Requirement r = parse_term(term);
    if (r.op != "=" && r.op != "!=")
      throw bad_request("invalid field selector: only the =, == and != operators are supported (in \"" + term + "\")");
    check_field_label(r.key, type);
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool FieldSelector::matches(const Json& object) const {
  for (const auto& r : requirements_) {
    const Json* v = at_path(object, split_dotted(r.key));
    // An absent field compares as "" (metadata.namespace of a cluster-scoped object, say).
    std::string text = v ? scalar_text(*v) : "";
    if (!requirement_matches(r, &text)) return false;
  }
  return true;
}

}  // namespace dha::testing::apiserver
