// A plugin's configuration comes from Helm values, its schema from the plugin's descriptor;
// both are outside data to validate_plugin_config. Input: "<schema>\0<config>" (no NUL: the
// whole input is the config against an empty schema). For every input:
//   - the result is a JSON object, or a PluginError naming the plugin;
//   - an accepted configuration holds only declared keys, every required key, and every key
//     with its declared type; text that is not a complete JSON object is never accepted;
//   - validating the result again changes nothing (defaults are applied once).

#include <rapidjson/document.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "plugin_host/config_validator.hpp"
#include "plugin_host/load_error.hpp"

namespace {

using dha::fuzz::printable;

bool is_json_object(std::string_view text) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  return !d.HasParseError() && d.IsObject();
}

bool has_type(const rapidjson::Value& v, std::string_view type) {
  if (type == "string") return v.IsString();
  if (type == "integer") return v.IsInt64() || v.IsUint64();
  if (type == "number") return v.IsNumber();
  if (type == "boolean") return v.IsBool();
  if (type == "object") return v.IsObject();
  if (type == "array") return v.IsArray();
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string schema(nul == std::string_view::npos ? std::string_view{} : input.substr(0, nul));
  const std::string config(nul == std::string_view::npos ? input : input.substr(nul + 1));

  std::string result;
  try {
    result = dha::plugin_host::validate_plugin_config("fuzz", schema, config);
  } catch (const dha::plugin_host::PluginError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with("plugin \"fuzz\": configuration "), e.what());
    return 0;
  }
  FUZZ_CHECK(config.empty() || is_json_object(config),
             "accepted a configuration that is not a JSON object: " + printable(config));

  rapidjson::Document out;
  out.Parse<rapidjson::kParseIterativeFlag>(result.data(), result.size());
  FUZZ_CHECK(!out.HasParseError() && out.IsObject(), "the result is not a JSON object: " + printable(result));
  rapidjson::Document declared;
  declared.Parse<rapidjson::kParseIterativeFlag>(schema.empty() ? R"({"keys":[]})" : schema.c_str());
  std::set<std::string> names;
  for (const auto& key : declared["keys"].GetArray()) {
    const std::string name(key["name"].GetString(), key["name"].GetStringLength());
    names.insert(name);
    const auto it = out.FindMember(key["name"]);
    const bool required = key.HasMember("required") && key["required"].IsTrue();
    if (required) FUZZ_CHECK(it != out.MemberEnd(), "required key missing: " + printable(name));
    if (it != out.MemberEnd()) {
      FUZZ_CHECK(has_type(it->value, key["type"].GetString()), "key " + printable(name) + " has the wrong type");
    }
  }
  for (const auto& m : out.GetObject())
    FUZZ_CHECK(names.contains(std::string(m.name.GetString(), m.name.GetStringLength())),
               "undeclared key " + printable(m.name.GetString()));

  FUZZ_CHECK(dha::plugin_host::validate_plugin_config("fuzz", schema, result) == result,
             "validation is not idempotent");
  return 0;
}
