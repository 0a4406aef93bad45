#include "dha_output.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace dha::cli {
namespace {

using rapidjson::Value;

std::string at(const Value& v, std::initializer_list<const char*> path) {
  const Value* cur = &v;
  for (const char* step : path) {
    if (!cur->IsObject()) return "";
    auto it = cur->FindMember(step);
    if (it == cur->MemberEnd()) return "";
    cur = &it->value;
  }
  if (cur->IsString()) return cur->GetString();
  if (cur->IsInt64()) return std::to_string(cur->GetInt64());
  return "";
}

std::string able_reason(const Value& dha) {
  const Value* status = dha.IsObject() && dha.HasMember("status") ? &dha["status"] : nullptr;
  if (status == nullptr || !status->IsObject() || !status->HasMember("conditions") ||
      !(*status)["conditions"].IsArray())
    return "";
  for (const auto& c : (*status)["conditions"].GetArray())
    if (at(c, {"type"}) == "AbleToScale") return at(c, {"reason"});
  return "";
}

std::string or_unknown(const std::string& s) { return s.empty() ? "<unknown>" : s; }

void emit(YAML::Emitter& out, const Value& v) {
  if (v.IsObject()) {
    out << YAML::BeginMap;
    for (const auto& m : v.GetObject()) {
      out << YAML::Key << m.name.GetString() << YAML::Value;
      emit(out, m.value);
    }
    out << YAML::EndMap;
  } else if (v.IsArray()) {
    out << YAML::BeginSeq;
    for (const auto& e : v.GetArray()) emit(out, e);
    out << YAML::EndSeq;
  } else if (v.IsString()) {
    // Always quoted: a value such as "true", "5" or "" reads back as the string it is.
    out << YAML::DoubleQuoted << std::string(v.GetString(), v.GetStringLength());
  } else if (v.IsBool()) {
    out << v.GetBool();
  } else if (v.IsInt64()) {
    out << v.GetInt64();
  } else if (v.IsUint64()) {
    out << v.GetUint64();
  } else if (v.IsNumber()) {
    out << v.GetDouble();
  } else {
    out << YAML::Null;
  }
}

}  // namespace

std::string render_list(const Value& list) {
  std::vector<std::vector<std::string>> rows{{"NAME", "TARGET", "CURRENT", "DESIRED", "REASON", "SUMMARY"}};
  if (list.IsObject() && list.HasMember("items") && list["items"].IsArray())
    for (const auto& d : list["items"].GetArray())
      rows.push_back({at(d, {"metadata", "name"}), or_unknown(at(d, {"status", "targetDisplay"})),
                      or_unknown(at(d, {"status", "currentDisplay"})), or_unknown(at(d, {"status", "desiredDisplay"})),
                      or_unknown(able_reason(d)), at(d, {"status", "summary"})});
  if (rows.size() == 1) return "No DatabaseHorizontalAutoscalers in this namespace.\n";
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += r[i] + (i + 1 < r.size() ? std::string(width[i] - r[i].size() + 3, ' ') : "");
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string render_object(const Value& object, const std::string& format) {
  if (format == "json") {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 4);
    object.Accept(writer);
    return std::string(buffer.GetString()) + "\n";
  }
  if (format == "yaml") {
    YAML::Emitter out;
    emit(out, object);
    return std::string(out.c_str()) + "\n";
  }
  throw std::invalid_argument("-o must be json or yaml, got \"" + format + "\"");
}

}  // namespace dha::cli
