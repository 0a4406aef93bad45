#include "tenancy/query_template.hpp"

#include <cctype>

#include "tenancy/label_escape.hpp"
#include "tenancy/namespace_scope.hpp"

namespace dha::tenancy {
namespace {

ScopedQuery refused(std::string why) { return ScopedQuery{"", std::move(why)}; }

}  // namespace

ScopedQuery render_scoped_query(std::string_view tmpl, const TargetLabels& target) {
  if (tmpl.empty()) return refused("the query is empty");
  std::string out;
  out.reserve(tmpl.size() + 64);
  char quote = '\0';  // the quote of the string we are in, or '\0'
  bool comment = false;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    const char c = tmpl[i];
    if (comment) {
      comment = c != '\n';
    } else if (quote != '\0') {
      if (c == '\\' && quote != '`' && i + 1 < tmpl.size()) {
        out += c;
        out += tmpl[++i];
        continue;
      }
      if (c == quote) quote = '\0';
    } else if (c == '"' || c == '\'' || c == '`') {
      quote = c;
    } else if (c == '#') {
      comment = true;
    }
    if (c == '$' && i + 1 < tmpl.size() && tmpl[i + 1] == '{' && !comment) {
      size_t close = i + 2;
      while (close < tmpl.size() && (std::isalnum(static_cast<unsigned char>(tmpl[close])) || tmpl[close] == '_'))
        ++close;
      if (close >= tmpl.size() || tmpl[close] != '}') {
        return refused("unterminated placeholder at offset " + std::to_string(i));
      }
      const std::string_view name = tmpl.substr(i + 2, close - i - 2);
      const std::string* value = name == "namespace" ? &target.namespace_name
                                 : name == "name"    ? &target.name
                                 : name == "release" ? &target.release
                                                     : nullptr;
      if (value == nullptr) {
        return refused("unknown placeholder ${" + std::string(name) + "}; known: ${namespace}, ${name}, ${release}");
      }
      if (quote != '"') {
        return refused("placeholder ${" + std::string(name) + "} at offset " + std::to_string(i) +
                       " is not inside a double-quoted string");
      }
      out += escape_label_value(*value);
      i = close;
      continue;
    }
    out += c;
  }
  if (std::string why = namespace_scope_violation(out, target.namespace_name); !why.empty()) {
    return refused(std::move(why));
  }
  return ScopedQuery{std::move(out), ""};
}

bool is_namespace_wide(std::string_view query_template) {
  return query_template.find("${name}") == std::string_view::npos &&
         query_template.find("${release}") == std::string_view::npos;
}

}  // namespace dha::tenancy
