#include "text_format.hpp"

#include <charconv>
#include <cmath>

namespace dha::telemetry::text {

void append_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, ec == std::errc{} ? end : buf);
}

void append_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"')
      out += "\\\"";
    else
      out += c;
  }
}

void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name, std::string_view extra_value) {
  if (names.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  auto pair = [&](std::string_view name, std::string_view value) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    append_label_value(out, value);
    out += '"';
  };
  for (std::size_t i = 0; i < names.size(); ++i) pair(names[i], values[i]);
  if (!extra_name.empty()) pair(extra_name, extra_value);
  out += '}';
}

}  // namespace dha::telemetry::text
