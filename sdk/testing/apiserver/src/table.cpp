// meta.k8s.io/v1 Table output for `kubectl get`: NAME, then the kind's printer columns
// evaluated with a JSONPath subset, dates rendered as ages the way kube-apiserver does.

#include "server_state.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <ctime>

namespace dha::testing::apiserver {

bool wants_table(const HttpRequest& request) {
  std::string accept = request.header("accept");
  return accept.find("as=Table") != std::string::npos;
}

namespace {

// Go's duration.HumanDuration, which kube uses for AGE columns.
std::string human_duration(long long seconds) {
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  long long minutes = seconds / 60;
  if (minutes < 10) {
    long long s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  long long hours = minutes / 60;
  if (hours < 8) {
    long long m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    long long h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  long long years = hours / 24 / 365;
  if (hours < 24 * 365 * 8) {
    long long d = (hours / 24) % 365;
    return d == 0 ? std::to_string(years) + "y" : std::to_string(years) + "y" + std::to_string(d) + "d";
  }
  return std::to_string(years) + "y";
}

long long parse_rfc3339(const std::string& text, bool& ok) {
  std::tm tm{};
  ok = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) != nullptr;
  return ok ? static_cast<long long>(timegm(&tm)) : 0;
}

// JSONPath subset: .a.b, .a[0], .a[*].b, .a[?(@.k=="v")].b, optionally wrapped in {}.
void eval_path(const Json& node, const std::string& path, std::size_t pos, std::vector<const Json*>& out) {
  if (pos >= path.size()) {
    out.push_back(&node);
    return;
  }
  if (path[pos] == '.') {
    std::size_t end = path.find_first_of(".[", pos + 1);
    std::string key = path.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
    if (key.empty()) return eval_path(node, path, pos + 1, out);
    if (const Json* child = member(node, key))
      eval_path(*child, path, end == std::string::npos ? path.size() : end, out);
    return;
  }
  if (path[pos] == '[') {
    std::size_t close = path.find(']', pos);
    if (close == std::string::npos || !node.IsArray()) return;
    std::string inside = path.substr(pos + 1, close - pos - 1);
    if (inside == "*") {
      for (const auto& item : node.GetArray()) eval_path(item, path, close + 1, out);
    } else if (inside.rfind("?(@.", 0) == 0) {
      auto eq = inside.find("==");
      if (eq == std::string::npos) return;
      std::string key = inside.substr(4, eq - 4);
      std::string want = inside.substr(eq + 2);
      if (!want.empty() && want.back() == ')') want.pop_back();
      if (want.size() >= 2 && (want.front() == '"' || want.front() == '\'')) want = want.substr(1, want.size() - 2);
      for (const auto& item : node.GetArray()) {
        const Json* v = member(item, key);
        if (v && v->IsString() && want == v->GetString()) eval_path(item, path, close + 1, out);
      }
    } else if (!inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos) {
      std::size_t idx = std::stoul(inside);
      if (idx < node.Size()) eval_path(node[static_cast<rapidjson::SizeType>(idx)], path, close + 1, out);
    }
    return;
  }
  eval_path(node, path, pos + 1, out);
}

// A "count" column (built-in printers' DATA, SECRETS) adds up the entries of the maps or lists
// at its comma-separated paths, as kube's printers count them.
int64_t count_entries(const PrinterColumn& col, const Json& obj) {
  int64_t n = 0;
  std::string paths = col.json_path + ",";
  for (std::size_t start = 0, comma; (comma = paths.find(',', start)) != std::string::npos; start = comma + 1) {
    std::vector<const Json*> values;
    eval_path(obj, paths.substr(start, comma - start), 0, values);
    for (const Json* v : values) n += v->IsObject() ? v->MemberCount() : v->IsArray() ? v->Size() : 0;
  }
  return n;
}

void write_cell(rapidjson::Writer<rapidjson::StringBuffer>& w, const PrinterColumn& col, const Json& obj) {
  if (col.type == "count") {
    w.Int64(count_entries(col, obj));
    return;
  }
  std::string path = col.json_path;
  if (!path.empty() && path.front() == '{') path = path.substr(1, path.size() - 2);
  std::vector<const Json*> values;
  eval_path(obj, path, 0, values);
  if (values.empty()) {
    w.Null();
    return;
  }
  const Json& v = *values.front();
  if (col.type == "date" && v.IsString()) {
    bool ok = false;
    long long t = parse_rfc3339(v.GetString(), ok);
    if (!ok) {
      w.String("<invalid>");
      return;
    }
    w.String(human_duration(static_cast<long long>(std::time(nullptr)) - t));
    return;
  }
  if (values.size() > 1 || v.IsObject() || v.IsArray()) {
    std::string joined;
    for (const Json* each : values) {
      if (!joined.empty()) joined += ",";
      joined += each->IsString() ? std::string(each->GetString()) : to_json(*each);
    }
    w.String(joined);
    return;
  }
  if (col.type == "string" && !v.IsString()) {
    w.String(to_json(v));
    return;
  }
  v.Accept(w);
}

}  // namespace

std::string render_table(const ResourceType& type, const ResourceVersionInfo& version,
                         const std::vector<ObjectPtr>& objects, const std::string& list_rv,
                         const std::string& continue_token, bool include_columns) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("Table");
  w.Key("apiVersion");
  w.String("meta.k8s.io/v1");
  w.Key("metadata");
  w.StartObject();
  if (!list_rv.empty()) {
    w.Key("resourceVersion");
    w.String(list_rv);
  }
  if (!continue_token.empty()) {
    w.Key("continue");
    w.String(continue_token);
  }
  w.EndObject();
  if (include_columns) {
    w.Key("columnDefinitions");
    w.StartArray();
    auto column = [&](const std::string& name, const std::string& t, const std::string& format,
                      const std::string& description, int priority) {
      w.StartObject();
      w.Key("name");
      w.String(name);
      // Built-in printers declare Age a string; CRD printer columns keep their declared type.
      bool as_string = t == "date" && !type.is_crd;
      w.Key("type");
      w.String(as_string || t == "count" ? "string" : t);  // kube declares counts strings too
      w.Key("format");
      w.String(as_string ? "" : format);
      w.Key("description");
      w.String(description);
      w.Key("priority");
      w.Int(priority);
      w.EndObject();
    };
    column("Name", "string", "name", "Name must be unique within a namespace.", type.name_column_priority);
    for (const auto& c : version.columns) column(c.name, c.type, c.format, c.description, c.priority);
    w.EndArray();
  }
  w.Key("rows");
  w.StartArray();
  for (const auto& obj : objects) {
    w.StartObject();
    w.Key("cells");
    w.StartArray();
    w.String(string_at(*obj, {"metadata", "name"}));
    for (const auto& c : version.columns) write_cell(w, c, *obj);
    w.EndArray();
    w.Key("object");
    w.StartObject();
    w.Key("kind");
    w.String("PartialObjectMetadata");
    w.Key("apiVersion");
    w.String("meta.k8s.io/v1");
    w.Key("metadata");
    if (const Json* meta = member(*obj, "metadata"))
      meta->Accept(w);
    else {
      w.StartObject();
      w.EndObject();
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace dha::testing::apiserver
