// Plugins supply PromQL templates; the host fills in ${namespace}, ${name} and ${release} and
// refuses anything not pinned to the target's namespace. Templates and label values are both
// outside data. Input: "<template>\0<namespace>\0<name>\0<release>" (missing parts get
// ordinary values). Whenever render_scoped_query says ok:
//   - the query passes namespace_scope_violation() and, if it selects any series, carries
//     namespace="<ns>" (constant-only queries are scoped by design: they read no data);
//   - the values stayed inside their strings: the query reads as the template's own tokens,
//     only string contents changed, and a string that was exactly "${x}" now holds exactly x;
// and a refusal always has a reason and no query.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "tenancy/namespace_scope.hpp"
#include "tenancy/promql_lexer.hpp"
#include "tenancy/query_template.hpp"

namespace {

using dha::fuzz::printable;
using namespace dha::tenancy;

std::string_view next_part(std::string_view& rest, std::string_view fallback, bool& present) {
  if (!present) return fallback;
  const auto nul = rest.find('\0');
  const std::string_view part = rest.substr(0, nul);
  if (nul == std::string_view::npos) {
    present = false;
  } else {
    rest.remove_prefix(nul + 1);
  }
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  bool present = true;
  const std::string tmpl(next_part(rest, "", present));
  TargetLabels target;
  target.namespace_name = std::string(next_part(rest, "tenant-a", present));
  target.name = std::string(next_part(rest, "pg", present));
  target.release = std::string(next_part(rest, "pg-release", present));

  const ScopedQuery q = render_scoped_query(tmpl, target);
  if (!q.ok()) {
    FUZZ_CHECK(q.query.empty(), "a refused query was returned anyway");
    return 0;
  }
  FUZZ_CHECK(namespace_scope_violation(q.query, target.namespace_name).empty(),
             "an unscoped query: " + printable(q.query));

  const LexResult out = lex_promql(q.query);
  FUZZ_CHECK(out.error.empty(), "the rendered query does not lex: " + out.error);
  // A query that selects no series at all (vector(1), a number) is scoped by design: it reads
  // no tenant's data. Any selector means the matcher must be there.
  bool pinned = true;
  for (const Token& t : out.tokens) pinned &= t.kind != TokenKind::kLeftBrace;
  for (std::size_t i = 0; i + 2 < out.tokens.size(); ++i) {
    pinned |= out.tokens[i].kind == TokenKind::kIdentifier && out.tokens[i].text == "namespace" &&
              out.tokens[i + 1].text == "=" && out.tokens[i + 2].kind == TokenKind::kString &&
              out.tokens[i + 2].text == target.namespace_name;
  }
  FUZZ_CHECK(pinned, "no namespace=\"<ns>\" matcher in " + printable(q.query));

  // Placeholders are plain characters inside a string, so the template lexes like the query.
  const LexResult in = lex_promql(tmpl);
  FUZZ_CHECK(in.error.empty(), "the template does not lex but its rendering does: " + printable(tmpl));
  FUZZ_CHECK(in.tokens.size() == out.tokens.size(),
             "a value changed the query's tokens: " + printable(tmpl) + " -> " + printable(q.query));
  for (std::size_t i = 0; i < in.tokens.size(); ++i) {
    const Token& a = in.tokens[i];
    const Token& b = out.tokens[i];
    FUZZ_CHECK(a.kind == b.kind, "token " + std::to_string(i) + " changed kind: " + printable(q.query));
    if (a.kind != TokenKind::kString) {
      FUZZ_CHECK(a.text == b.text, "token " + std::to_string(i) + " changed: " + printable(q.query));
      continue;
    }
    const std::string_view raw = std::string_view(tmpl).substr(a.offset);
    if (raw.starts_with("\"${namespace}\"")) FUZZ_CHECK(b.text == target.namespace_name, printable(q.query));
    if (raw.starts_with("\"${name}\"")) FUZZ_CHECK(b.text == target.name, printable(q.query));
    if (raw.starts_with("\"${release}\"")) FUZZ_CHECK(b.text == target.release, printable(q.query));
  }
  return 0;
}
