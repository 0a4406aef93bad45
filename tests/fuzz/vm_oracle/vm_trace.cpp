#include "vm_trace.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>

namespace dha::fuzz {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Canonical text of a query's data: one line per series, sorted.
std::string canonical_result(const rapidjson::Value& data) {
  if (!data.IsObject() || !data.HasMember("result")) return "";
  const auto& result = data["result"];
  std::string type =
      data.HasMember("resultType") && data["resultType"].IsString() ? data["resultType"].GetString() : "";
  if (!result.IsArray()) return type + ":" + (result.IsString() ? result.GetString() : "?");
  auto sample_text = [](const rapidjson::Value& pair) {
    if (!pair.IsArray() || pair.Size() != 2 || !pair[1].IsString()) return std::string("?");
    return std::to_string(pair[0].IsNumber() ? pair[0].GetDouble() : 0) + "=" + pair[1].GetString();
  };
  if (type == "scalar" || type == "string") return type + ":" + sample_text(result);
  std::vector<std::string> lines;
  for (const auto& series : result.GetArray()) {
    std::vector<std::string> labels;
    if (series.HasMember("metric") && series["metric"].IsObject()) {
      for (auto it = series["metric"].MemberBegin(); it != series["metric"].MemberEnd(); ++it) {
        labels.push_back(std::string(it->name.GetString()) + "=" + (it->value.IsString() ? it->value.GetString() : ""));
      }
    }
    std::sort(labels.begin(), labels.end());
    std::string line = "{";
    for (const auto& l : labels) line += l + ",";
    line += "}";
    if (series.HasMember("value")) line += " " + sample_text(series["value"]);
    if (series.HasMember("values") && series["values"].IsArray()) {
      for (const auto& v : series["values"].GetArray()) line += " " + sample_text(v);
    }
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string out = type + ":";
  for (const auto& l : lines) out += l + "\n";
  return out;
}

void collect_fetches(const rapidjson::Value& node, std::vector<FetchStep>& out) {
  if (!node.IsObject()) return;
  if (node.HasMember("message") && node["message"].IsString()) {
    const auto& m = node["message"];
    if (auto step = parse_fetch_message(std::string_view(m.GetString(), m.GetStringLength()))) {
      out.push_back(std::move(*step));
    }
  }
  if (node.HasMember("children") && node["children"].IsArray()) {
    for (const auto& child : node["children"].GetArray()) collect_fetches(child, out);
  }
}

}  // namespace

std::optional<std::string> go_unquote(std::string_view& text) {
  if (text.empty() || text.front() != '"') return std::nullopt;
  std::string out;
  size_t i = 1;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      text.remove_prefix(i + 1);
      return out;
    }
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) return std::nullopt;
    const char e = text[i + 1];
    i += 2;
    switch (e) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
      case '"':
      case '\'':
        out += e;
        break;
      case 'x':
      case 'u':
      case 'U': {
        const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (i + digits > text.size()) return std::nullopt;
        uint32_t v = 0;
        for (size_t k = 0; k < digits; ++k) {
          const int d = hex_digit(text[i + k]);
          if (d < 0) return std::nullopt;
          v = v * 16 + static_cast<uint32_t>(d);
        }
        i += digits;
        if (e == 'x') {
          out += static_cast<char>(v);
        } else {
          append_utf8(out, v);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7' && i + 2 <= text.size()) {  // \ooo
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (size_t k = 0; k < 2; ++k) {
            if (text[i + k] < '0' || text[i + k] > '7') return std::nullopt;
            v = v * 8 + static_cast<uint32_t>(text[i + k] - '0');
          }
          i += 2;
          out += static_cast<char>(v);
          break;
        }
        return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<FetchStep> parse_fetch_message(std::string_view message) {
  static constexpr std::string_view kPrefix = "fetch matching series: filters=[";
  if (!message.starts_with(kPrefix)) return std::nullopt;
  FetchStep step;
  std::string_view rest = message.substr(kPrefix.size());
  auto fail = [&](const std::string& why) {
    step.groups.clear();
    step.error = why + " in: " + std::string(message);
    return step;
  };
  while (true) {
    if (rest.starts_with("]")) return step;
    if (!rest.starts_with("{")) return fail("expected '{'");
    rest.remove_prefix(1);
    FilterGroup group;
    while (!rest.starts_with("}")) {
      // label, operator, Go-quoted value; label names cannot hold '=' or '!' in PromQL.
      const size_t op_at = rest.find_first_of("=!");
      if (op_at == std::string_view::npos) return fail("no matcher operator");
      TagFilter f;
      f.label = std::string(rest.substr(0, op_at));
      rest.remove_prefix(op_at);
      for (std::string_view op : {"=~", "!~", "!=", "="}) {
        if (rest.starts_with(op)) {
          f.op = std::string(op);
          rest.remove_prefix(op.size());
          break;
        }
      }
      if (f.op.empty()) return fail("unknown matcher operator");
      auto value = go_unquote(rest);
      if (!value) return fail("unreadable filter value");
      f.value = std::move(*value);
      if (f.label.empty()) f.label = "__name__";
      group.push_back(std::move(f));
      if (rest.starts_with(",")) rest.remove_prefix(1);
    }
    rest.remove_prefix(1);
    step.groups.push_back(std::move(group));
    if (rest.starts_with(",")) rest.remove_prefix(1);
  }
}

TracedAnswer read_traced_answer(const std::string& body) {
  TracedAnswer out;
  rapidjson::Document doc;
  doc.Parse(body.c_str(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("status") || !doc["status"].IsString()) return out;
  out.status = doc["status"].GetString();
  if (doc.HasMember("error") && doc["error"].IsString()) out.error = doc["error"].GetString();
  if (doc.HasMember("data")) out.result = canonical_result(doc["data"]);
  if (doc.HasMember("trace")) {
    out.has_trace = true;
    collect_fetches(doc["trace"], out.fetches);
  }
  return out;
}

bool pinned_to(const FilterGroup& group, std::string_view ns) {
  return std::any_of(group.begin(), group.end(),
                     [&](const TagFilter& f) { return f.label == "namespace" && f.op == "=" && f.value == ns; });
}

std::string to_text(const FilterGroup& group) {
  std::string out = "{";
  for (const auto& f : group) {
    if (out.size() > 1) out += ",";
    out += f.label + f.op + "\"" + f.value + "\"";
  }
  return out + "}";
}

}  // namespace dha::fuzz
