#include "plugin_host/config_validator.hpp"

#include <set>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "plugin_host/load_error.hpp"

namespace dha::plugin_host {

namespace {

bool has_type(const rapidjson::Value& v, const std::string& type) {
  if (type == "string") return v.IsString();
  if (type == "integer") return v.IsInt64() || v.IsUint64();
  if (type == "number") return v.IsNumber();
  if (type == "boolean") return v.IsBool();
  if (type == "object") return v.IsObject();
  if (type == "array") return v.IsArray();
  return false;
}

const char* type_name(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return v.IsInt64() || v.IsUint64() ? "integer" : "number";
  }
  return "unknown";
}

// A key name from the user's JSON, shown in an error: control characters (a NUL would end the
// message early) are written as JSON escapes, so the user sees which key was refused.
std::string printable(const std::string& key) {
  std::string out;
  for (const char c : key) {
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void fail(const std::string& plugin_id, const std::string& what) {
  throw PluginError(fmt::format("plugin \"{}\": configuration {}", plugin_id, what));
}

}  // namespace

std::string validate_plugin_config(const std::string& plugin_id, const std::string& config_schema,
                                   const std::string& config_json) {
  rapidjson::Document config;
  if (config_json.empty()) {
    config.SetObject();
  } else if (config_json.find('\0') != std::string::npos ||  // RapidJSON would stop reading at a NUL
             config.Parse(config_json.c_str(), config_json.size()).HasParseError() || !config.IsObject()) {
    fail(plugin_id, "is not a JSON object");
  }

  rapidjson::Document schema;
  if (config_schema.empty()) {
    schema.Parse(R"({"keys":[]})");
  } else {
    schema.Parse(config_schema.c_str(), config_schema.size());
  }
  if (schema.HasParseError() || !schema.IsObject() || !schema.HasMember("keys") || !schema["keys"].IsArray()) {
    fail(plugin_id, "schema declared by the plugin has no \"keys\" array");
  }

  std::set<std::string> known;
  for (const auto& key : schema["keys"].GetArray()) {
    if (!key.IsObject() || !key.HasMember("name") || !key["name"].IsString() || !key.HasMember("type") ||
        !key["type"].IsString()) {
      fail(plugin_id, "schema declared by the plugin has a key without a name or type");
    }
    const std::string name = key["name"].GetString();
    const std::string type = key["type"].GetString();
    known.insert(name);
    auto member = config.FindMember(name.c_str());
    if (member != config.MemberEnd()) {
      if (!has_type(member->value, type)) {
        fail(plugin_id, fmt::format("key \"{}\" must be of type {}, got {}", name, type, type_name(member->value)));
      }
      continue;
    }
    const bool required = key.HasMember("required") && key["required"].IsBool() && key["required"].GetBool();
    if (required) fail(plugin_id, fmt::format("key \"{}\" is required", name));
    if (key.HasMember("default") && !key["default"].IsNull()) {
      // The plugin's own default must pass the check a user's value would: the plugin would
      // otherwise receive a value of a type it never declared.
      if (!has_type(key["default"], type)) {
        fail(plugin_id, fmt::format("schema declared by the plugin gives key \"{}\" a default of type {}, not {}", name,
                                    type_name(key["default"]), type));
      }
      rapidjson::Value default_value(key["default"], config.GetAllocator());
      config.AddMember(rapidjson::Value(name, config.GetAllocator()), default_value, config.GetAllocator());
    }
  }
  for (const auto& member : config.GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    if (!known.contains(name)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(plugin_id,
           fmt::format("key \"{}\" is unknown (known keys: {})", printable(name), list.empty() ? "none" : list));
    }
  }

  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  config.Accept(writer);
  return out.GetString();
}

}  // namespace dha::plugin_host
