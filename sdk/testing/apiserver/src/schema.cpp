#include "schema.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace dha::testing::apiserver {

namespace {

std::string str(const Json& v) { return std::string(v.GetString(), v.GetStringLength()); }

// Go's %v for a float64: integral values print without a fraction ("3", not "3.000000").
std::string go_number(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The value as field.Invalid prints it.
std::string go_value(const Json& v) {
  if (v.IsString()) return quote(str(v));
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsNumber()) return go_number(v.GetDouble());
  if (v.IsNull()) return "null";
  return quote(v.IsObject() ? "object" : "array");
}

std::string json_type_name(const Json& v) {
  if (v.IsString()) return "string";
  if (v.IsBool()) return "boolean";
  if (v.IsInt64() || v.IsUint64()) return "integer";
  if (v.IsNumber()) return std::floor(v.GetDouble()) == v.GetDouble() ? "integer" : "number";
  if (v.IsObject()) return "object";
  if (v.IsArray()) return "array";
  return "null";
}

std::string display_path(const std::string& path) { return path.empty() ? "<root>" : path; }

void add_cause(std::vector<StatusCause>& causes, const std::string& reason, const std::string& path,
               const std::string& message) {
  causes.push_back({reason, message, path});
}

void invalid(std::vector<StatusCause>& causes, const std::string& path, const Json& value, const std::string& detail) {
  add_cause(causes, "FieldValueInvalid", path, "Invalid value: " + go_value(value) + ": " + detail);
}

std::optional<int64_t> int_of(const Json& s, const char* key) {
  const Json* v = member(s, key);
  if (!v || !v->IsNumber()) return std::nullopt;
  return static_cast<int64_t>(v->GetDouble());
}

std::optional<double> double_of(const Json& s, const char* key) {
  const Json* v = member(s, key);
  if (!v || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

bool bool_of(const Json& s, const char* key) {
  const Json* v = member(s, key);
  return v && v->IsBool() && v->GetBool();
}

// --- the tiny CEL subset -------------------------------------------------------------------

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

bool parse_operand(const std::string& text, CelOperand& out) {
  std::string t = trim(text);
  if (t == "self" || t.rfind("self.", 0) == 0) {
    out.is_self_path = true;
    out.path = split_dotted(t.substr(4));
    for (const auto& seg : out.path) {
      for (char c : seg)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
  }
  out.literal = std::make_shared<JsonDoc>();
  if (t.size() >= 2 && ((t.front() == '\'' && t.back() == '\'') || (t.front() == '"' && t.back() == '"'))) {
    std::string inner = t.substr(1, t.size() - 2);
    out.literal->SetString(inner.c_str(), static_cast<rapidjson::SizeType>(inner.size()), out.literal->GetAllocator());
    return true;
  }
  if (t == "true" || t == "false") {
    out.literal->SetBool(t == "true");
    return true;
  }
  if (!t.empty() && t.find_first_not_of("-0123456789.") == std::string::npos) {
    if (t.find('.') == std::string::npos)
      out.literal->SetInt64(std::stoll(t));
    else
      out.literal->SetDouble(std::stod(t));
    return true;
  }
  return false;
}

CelRule compile_rule(const Json& rule_json, const std::string& field) {
  CelRule rule;
  const Json* r = member(rule_json, "rule");
  if (!r || !r->IsString()) throw SchemaError(field + ".rule", "Required value");
  rule.rule = str(*r);
  if (member(rule_json, "messageExpression"))
    throw SchemaError(field + ".messageExpression", "messageExpression is not supported by the dha-apiserver test kit");
  rule.message = string_at(rule_json, {"message"});
  rule.field_path = string_at(rule_json, {"fieldPath"});
  rule.reason = string_at(rule_json, {"reason"}, "FieldValueInvalid");
  static const char* const kOps[] = {">=", "<=", "==", "!=", ">", "<"};
  for (const char* op : kOps) {
    auto pos = rule.rule.find(op);
    if (pos == std::string::npos) continue;
    rule.op = op;
    bool ok = parse_operand(rule.rule.substr(0, pos), rule.left) &&
              parse_operand(rule.rule.substr(pos + std::string(op).size()), rule.right) &&
              (rule.left.is_self_path || rule.right.is_self_path);
    if (ok && rule.rule.find("oldSelf") == std::string::npos) return rule;
    break;
  }
  if ((rule.expression = CelExpression::compile(rule.rule))) return rule;
  throw SchemaError(field + ".rule", "Invalid value: " + quote(rule.rule) +
                                         ": rule not supported by the dha-apiserver test kit (only \"self.<path> <op> "
                                         "self.<path>|<literal>\" with <op> one of >= <= > < == !=, or the subset in "
                                         "cel_expression.hpp)");
}

const Json* resolve(const CelOperand& operand, const Json& self, std::string& missing) {
  if (!operand.is_self_path) return operand.literal.get();
  const Json* cur = &self;
  for (const auto& key : operand.path) {
    const Json* next = member(*cur, key);
    if (!next) {
      missing = key;
      return nullptr;
    }
    cur = next;
  }
  return cur;
}

// Returns "" when the rule holds, "error: ..." on evaluation errors, or "false" when violated.
std::string evaluate(const CelRule& rule, const Json& self) {
  if (rule.expression) return rule.expression->evaluate(self);
  std::string missing;
  const Json* a = resolve(rule.left, self, missing);
  const Json* b = a ? resolve(rule.right, self, missing) : nullptr;
  if (!a || !b) return "error: no such key: " + missing;
  int cmp = 0;
  if (a->IsNumber() && b->IsNumber()) {
    double x = a->GetDouble(), y = b->GetDouble();
    cmp = x < y ? -1 : (x > y ? 1 : 0);
  } else if (a->IsString() && b->IsString()) {
    cmp = str(*a).compare(str(*b));
    cmp = cmp < 0 ? -1 : (cmp > 0 ? 1 : 0);
  } else if (a->IsBool() && b->IsBool() && (rule.op == "==" || rule.op == "!=")) {
    cmp = a->GetBool() == b->GetBool() ? 0 : 1;
  } else {
    return "error: no matching overload for '" + rule.op + "'";
  }
  bool ok = (rule.op == ">=" && cmp >= 0) || (rule.op == "<=" && cmp <= 0) || (rule.op == ">" && cmp > 0) ||
            (rule.op == "<" && cmp < 0) || (rule.op == "==" && cmp == 0) || (rule.op == "!=" && cmp != 0);
  return ok ? "" : "false";
}

bool json_equal(const Json& a, const Json& b) {
  if (a.IsNumber() && b.IsNumber()) return a.GetDouble() == b.GetDouble();
  return a == b;
}

}  // namespace

std::unique_ptr<SchemaNode> compile_schema(const Json& s, const std::string& field) {
  if (!s.IsObject()) throw SchemaError(field, "must be an object");
  auto node = std::make_unique<SchemaNode>();
  node->type = string_at(s, {"type"});
  static const char* const kTypes[] = {"", "object", "array", "string", "integer", "number", "boolean"};
  bool known = false;
  for (const char* t : kTypes) known = known || node->type == t;
  if (!known) throw SchemaError(field + ".type", "Unsupported value: " + quote(node->type));
  node->nullable = bool_of(s, "nullable");
  node->preserve_unknown_fields = bool_of(s, "x-kubernetes-preserve-unknown-fields");
  node->int_or_string = bool_of(s, "x-kubernetes-int-or-string");
  node->embedded_resource = bool_of(s, "x-kubernetes-embedded-resource");
  if (const Json* props = member(s, "properties"); props && props->IsObject()) {
    for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) {
      std::string name = str(it->name);
      node->properties[name] = compile_schema(it->value, field + ".properties[" + name + "]");
    }
  }
  if (const Json* items = member(s, "items"); items && items->IsObject())
    node->items = compile_schema(*items, field + ".items");
  if (const Json* ap = member(s, "additionalProperties"); ap && ap->IsObject())
    node->additional_properties = compile_schema(*ap, field + ".additionalProperties");
  if (const Json* req = member(s, "required"); req && req->IsArray())
    for (const auto& r : req->GetArray())
      if (r.IsString()) node->required.push_back(str(r));
  if (const Json* en = member(s, "enum"); en && en->IsArray())
    for (const auto& e : en->GetArray()) node->enum_values.push_back(clone(e));
  node->minimum = double_of(s, "minimum");
  node->maximum = double_of(s, "maximum");
  node->exclusive_minimum = bool_of(s, "exclusiveMinimum");
  node->exclusive_maximum = bool_of(s, "exclusiveMaximum");
  node->min_length = int_of(s, "minLength");
  node->max_length = int_of(s, "maxLength");
  node->min_items = int_of(s, "minItems");
  node->max_items = int_of(s, "maxItems");
  node->min_properties = int_of(s, "minProperties");
  node->max_properties = int_of(s, "maxProperties");
  if (const Json* p = member(s, "pattern"); p && p->IsString()) {
    node->pattern = str(*p);
    try {
      node->pattern_regex = std::regex(*node->pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw SchemaError(field + ".pattern", "Invalid value: " + quote(*node->pattern) + ": " + e.what());
    }
  }
  if (const Json* d = member(s, "default")) node->default_value = clone(*d);
  for (const char* combinator : {"anyOf", "allOf", "oneOf"}) {
    const Json* list = member(s, combinator);
    if (!list || !list->IsArray()) continue;
    auto& target = std::string(combinator) == "anyOf"   ? node->any_of
                   : std::string(combinator) == "allOf" ? node->all_of
                                                        : node->one_of;
    int i = 0;
    for (const auto& sub : list->GetArray())
      target.push_back(compile_schema(sub, field + "." + combinator + "[" + std::to_string(i++) + "]"));
  }
  if (const Json* rules = member(s, "x-kubernetes-validations"); rules && rules->IsArray()) {
    int i = 0;
    for (const auto& r : rules->GetArray())
      node->rules.push_back(compile_rule(r, field + ".x-kubernetes-validations[" + std::to_string(i++) + "]"));
  }
  return node;
}

void apply_defaults(const SchemaNode& schema, Json& value, Alloc& alloc) {
  if (value.IsObject()) {
    for (const auto& [name, prop] : schema.properties) {
      Json* child = member(value, name);
      if (!child && prop->default_value) {
        Json copy(*prop->default_value, alloc);
        set_member(value, name, std::move(copy), alloc);
        child = member(value, name);
      }
      if (child) apply_defaults(*prop, *child, alloc);
    }
    if (schema.additional_properties)
      for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it)
        apply_defaults(*schema.additional_properties, it->value, alloc);
  } else if (value.IsArray() && schema.items) {
    for (auto& item : value.GetArray()) apply_defaults(*schema.items, item, alloc);
  }
}

void prune_unknown(const SchemaNode& schema, Json& value, const std::string& path, std::vector<std::string>& unknown,
                   bool is_root) {
  if (value.IsObject()) {
    std::vector<std::string> drop;
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
      std::string name = str(it->name);
      std::string child_path = path.empty() ? name : path + "." + name;
      if (is_root && (name == "apiVersion" || name == "kind" || name == "metadata")) continue;
      if (schema.embedded_resource && (name == "apiVersion" || name == "kind" || name == "metadata")) continue;
      auto prop = schema.properties.find(name);
      if (prop != schema.properties.end()) {
        prune_unknown(*prop->second, it->value, child_path, unknown, false);
      } else if (schema.additional_properties) {
        prune_unknown(*schema.additional_properties, it->value, child_path, unknown, false);
      } else if (!schema.preserve_unknown_fields) {
        drop.push_back(name);
        unknown.push_back(child_path);
      }
    }
    for (const auto& name : drop) remove_member(value, name);
  } else if (value.IsArray() && schema.items) {
    int i = 0;
    for (auto& item : value.GetArray())
      prune_unknown(*schema.items, item, path + "[" + std::to_string(i++) + "]", unknown, false);
  }
}

void validate_value(const SchemaNode& schema, const Json& value, const std::string& path,
                    std::vector<StatusCause>& causes, bool is_root) {
  const std::string shown = display_path(path);
  if (value.IsNull()) {
    if (!schema.nullable && !schema.type.empty())
      add_cause(causes, "FieldValueTypeInvalid", path,
                "Invalid value: \"null\": " + shown + " in body must be of type " + schema.type + ": \"null\"");
    return;
  }
  const std::string actual = json_type_name(value);
  if (schema.int_or_string) {
    if (actual != "integer" && actual != "string") {
      add_cause(causes, "FieldValueTypeInvalid", path,
                "Invalid value: \"" + actual + "\": " + shown + " in body must be of type integer,string: \"" + actual +
                    "\"");
      return;
    }
  } else if (!schema.type.empty()) {
    bool ok = schema.type == actual || (schema.type == "number" && actual == "integer");
    if (!ok) {
      add_cause(causes, "FieldValueTypeInvalid", path,
                "Invalid value: \"" + actual + "\": " + shown + " in body must be of type " + schema.type + ": \"" +
                    actual + "\"");
      return;
    }
  }
  if (!schema.enum_values.empty()) {
    bool found = false;
    std::string supported;
    for (const auto& e : schema.enum_values) {
      found = found || json_equal(*e, value);
      if (!supported.empty()) supported += ", ";
      supported += go_value(*e);
    }
    if (!found)
      add_cause(causes, "FieldValueNotSupported", path,
                "Unsupported value: " + go_value(value) + ": supported values: " + supported);
  }
  if (value.IsNumber()) {
    double d = value.GetDouble();
    if (schema.minimum && (schema.exclusive_minimum ? d <= *schema.minimum : d < *schema.minimum))
      invalid(causes, path, value,
              shown + " in body should be greater than " + (schema.exclusive_minimum ? "" : "or equal to ") +
                  go_number(*schema.minimum));
    if (schema.maximum && (schema.exclusive_maximum ? d >= *schema.maximum : d > *schema.maximum))
      invalid(causes, path, value,
              shown + " in body should be less than " + (schema.exclusive_maximum ? "" : "or equal to ") +
                  go_number(*schema.maximum));
  }
  if (value.IsString()) {
    auto len = static_cast<int64_t>(value.GetStringLength());
    if (schema.min_length && len < *schema.min_length)
      invalid(causes, path, value,
              shown + " in body should be at least " + std::to_string(*schema.min_length) + " chars long");
    if (schema.max_length && len > *schema.max_length)
      add_cause(causes, "FieldValueTooLong", path,
                "Too long: may not be more than " + std::to_string(*schema.max_length) + " bytes");
    if (schema.pattern_regex && !std::regex_search(str(value), *schema.pattern_regex))
      invalid(causes, path, value, shown + " in body should match '" + *schema.pattern + "'");
  }
  if (value.IsArray()) {
    auto n = static_cast<int64_t>(value.Size());
    if (schema.min_items && n < *schema.min_items)
      add_cause(causes, "FieldValueInvalid", path,
                "Invalid value: " + std::to_string(n) + ": " + shown + " in body should have at least " +
                    std::to_string(*schema.min_items) + " items");
    if (schema.max_items && n > *schema.max_items)
      add_cause(
          causes, "FieldValueTooMany", path,
          "Too many: " + std::to_string(n) + ": must have at most " + std::to_string(*schema.max_items) + " items");
    if (schema.items) {
      int i = 0;
      for (const auto& item : value.GetArray())
        validate_value(*schema.items, item, path + "[" + std::to_string(i++) + "]", causes, false);
    }
  }
  if (value.IsObject()) {
    auto n = static_cast<int64_t>(value.MemberCount());
    if (schema.min_properties && n < *schema.min_properties)
      invalid(causes, path, value,
              shown + " in body should have at least " + std::to_string(*schema.min_properties) + " properties");
    if (schema.max_properties && n > *schema.max_properties)
      add_cause(causes, "FieldValueTooMany", path,
                "Too many: " + std::to_string(n) + ": must have at most " + std::to_string(*schema.max_properties) +
                    " items");
    for (const auto& req : schema.required) {
      if (!member(value, req))
        add_cause(causes, "FieldValueRequired", path.empty() ? req : path + "." + req, "Required value");
    }
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
      std::string name = str(it->name);
      if (is_root && name == "metadata") continue;  // metadata is validated by the object layer
      std::string child_path = path.empty() ? name : path + "." + name;
      auto prop = schema.properties.find(name);
      if (prop != schema.properties.end())
        validate_value(*prop->second, it->value, child_path, causes, false);
      else if (schema.additional_properties)
        validate_value(*schema.additional_properties, it->value, child_path, causes, false);
    }
  }
  for (const auto& sub : schema.all_of) validate_value(*sub, value, path, causes, false);
  if (!schema.any_of.empty() && !schema.int_or_string) {
    bool any = false;
    for (const auto& sub : schema.any_of) {
      std::vector<StatusCause> scratch;
      validate_value(*sub, value, path, scratch, false);
      any = any || scratch.empty();
    }
    if (!any) invalid(causes, path, value, shown + " in body must match at least one schema (anyOf)");
  }
  if (!schema.one_of.empty()) {
    int matches = 0;
    for (const auto& sub : schema.one_of) {
      std::vector<StatusCause> scratch;
      validate_value(*sub, value, path, scratch, false);
      matches += scratch.empty() ? 1 : 0;
    }
    if (matches != 1) invalid(causes, path, value, shown + " in body must validate one and only one schema (oneOf)");
  }
  for (const auto& rule : schema.rules) {
    std::string outcome = evaluate(rule, value);
    if (outcome.empty()) continue;
    std::string rule_path = path;
    if (!rule.field_path.empty()) rule_path = path + rule.field_path;
    std::string type_shown = "\"" + (schema.type.empty() ? actual : schema.type) + "\"";
    if (outcome.rfind("error: ", 0) == 0) {
      add_cause(causes, "FieldValueInvalid", rule_path,
                "Invalid value: " + type_shown + ": " + outcome.substr(7) + " evaluating rule: " + rule.rule);
    } else {
      std::string message = rule.message.empty() ? "failed rule: " + rule.rule : rule.message;
      add_cause(causes, rule.reason, rule_path, "Invalid value: " + type_shown + ": " + message);
    }
  }
}

std::string aggregate_causes(const std::vector<StatusCause>& causes) {
  std::string joined;
  for (const auto& c : causes) {
    if (!joined.empty()) joined += ", ";
    joined += (c.field.empty() ? "" : c.field + ": ") + c.message;
  }
  return causes.size() > 1 ? "[" + joined + "]" : joined;
}

}  // namespace dha::testing::apiserver
