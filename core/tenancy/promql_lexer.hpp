#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dha::tenancy {

// The token kinds the namespace check needs to see; PromQL and the MetricsQL that
// VictoriaMetrics speaks share them. Operators are kept as one kind, since only matcher
// operators inside braces matter.
enum class TokenKind {
  kIdentifier,  // metric names, label names, functions, keywords (by, on, offset, ...)
  kString,      // "..." '...' `...`; `text` holds the unescaped value
  kNumber,      // 1, 1.5e3, 0x1f, and anything that starts with a digit or '.': 5m, 1h30m, 1Ki
  kLeftBrace,
  kRightBrace,
  kLeftParen,
  kRightParen,
  kLeftBracket,
  kRightBracket,
  kComma,
  kColon,
  kAt,
  kOperator,  // = != =~ !~ == > < >= <= + - * / % ^
};

struct Token {
  TokenKind kind;
  std::string text;  // source text, or the unescaped value for strings
  size_t offset;     // byte offset in the query, for messages
};

struct LexResult {
  std::vector<Token> tokens;
  std::string error;  // non-empty when the query cannot be tokenised
};

// Splits a query into tokens, skipping whitespace and # comments. Refuses (error) an
// unterminated string, an escape sequence it does not know, and any character PromQL does not
// use, rather than guess: what we cannot read we cannot vouch for.
LexResult lex_promql(std::string_view query);

}  // namespace dha::tenancy
