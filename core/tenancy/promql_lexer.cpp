#include "tenancy/promql_lexer.hpp"

#include <cctype>

namespace dha::tenancy {
namespace {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Reads a quoted string starting at q[i] (the quote). Go escape rules, as PromQL uses them;
// backtick strings are raw. Returns the end offset (past the closing quote) or npos on error.
size_t read_string(std::string_view q, size_t i, std::string& value, std::string& error) {
  const char quote = q[i];
  size_t j = i + 1;
  while (j < q.size()) {
    const char c = q[j];
    if (c == quote) return j + 1;
    if (quote != '`' && c == '\n') {
      error = "newline inside a string at offset " + std::to_string(j);
      return std::string_view::npos;
    }
    if (quote == '`' || c != '\\') {
      value += c;
      ++j;
      continue;
    }
    if (j + 1 >= q.size()) break;
    const char e = q[j + 1];
    j += 2;
    switch (e) {
      case '\\':
        value += '\\';
        break;
      case '"':
        value += '"';
        break;
      case '\'':
        value += '\'';
        break;
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case 'a':
        value += '\a';
        break;
      case 'b':
        value += '\b';
        break;
      case 'f':
        value += '\f';
        break;
      case 'v':
        value += '\v';
        break;
      case 'x':
      case 'u':
      case 'U': {
        const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        unsigned code = 0;
        for (size_t k = 0; k < digits; ++k) {
          const int h = j + k < q.size() ? hex_value(q[j + k]) : -1;
          if (h < 0) {
            error = "bad \\" + std::string(1, e) + " escape at offset " + std::to_string(j - 2);
            return std::string_view::npos;
          }
          code = code * 16 + static_cast<unsigned>(h);
        }
        j += digits;
        if (e == 'x') {
          value += static_cast<char>(code);
        } else if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
          error = "escape names no Unicode character at offset " + std::to_string(j - digits - 2);
          return std::string_view::npos;
        } else {
          append_utf8(value, code);
        }
        break;
      }
      default:
        error = "unknown escape \\" + std::string(1, e) + " at offset " + std::to_string(j - 2);
        return std::string_view::npos;
    }
  }
  error = "unterminated string starting at offset " + std::to_string(i);
  return std::string_view::npos;
}

}  // namespace

LexResult lex_promql(std::string_view q) {
  LexResult r;
  size_t i = 0;
  auto push = [&](TokenKind kind, size_t length) {
    r.tokens.push_back(Token{kind, std::string(q.substr(i, length)), i});
    i += length;
  };
  while (i < q.size()) {
    const char c = q[i];
    const char next = i + 1 < q.size() ? q[i + 1] : '\0';
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < q.size() && q[i] != '\n') ++i;
    } else if (c == '"' || c == '\'' || c == '`') {
      std::string value;
      const size_t end = read_string(q, i, value, r.error);
      if (end == std::string_view::npos) return r;
      r.tokens.push_back(Token{TokenKind::kString, std::move(value), i});
      i = end;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(next)))) {
      // Numbers, durations (5m, 1h30m) and unit suffixes: one token, never a selector.
      size_t j = i;
      while (j < q.size() && (std::isalnum(static_cast<unsigned char>(q[j])) || q[j] == '.' || q[j] == '_' ||
                              ((q[j] == '+' || q[j] == '-') && (q[j - 1] == 'e' || q[j - 1] == 'E') &&
                               !(q[i] == '0' && j > i + 1 && (q[i + 1] == 'x' || q[i + 1] == 'X'))))) {
        ++j;
      }
      push(TokenKind::kNumber, j - i);
    } else if (c == ':' && !(std::isalpha(static_cast<unsigned char>(next)) || next == '_' || next == ':')) {
      push(TokenKind::kColon, 1);  // subquery step separator, [30m:1m]
    } else if (is_identifier_start(c)) {
      size_t j = i;
      while (j < q.size() && is_identifier_char(q[j])) ++j;
      push(TokenKind::kIdentifier, j - i);
    } else if (c == '{') {
      push(TokenKind::kLeftBrace, 1);
    } else if (c == '}') {
      push(TokenKind::kRightBrace, 1);
    } else if (c == '(') {
      push(TokenKind::kLeftParen, 1);
    } else if (c == ')') {
      push(TokenKind::kRightParen, 1);
    } else if (c == '[') {
      push(TokenKind::kLeftBracket, 1);
    } else if (c == ']') {
      push(TokenKind::kRightBracket, 1);
    } else if (c == ',') {
      push(TokenKind::kComma, 1);
    } else if (c == '@') {
      push(TokenKind::kAt, 1);
    } else if ((c == '=' || c == '!') && (next == '=' || next == '~')) {
      push(TokenKind::kOperator, 2);
    } else if ((c == '>' || c == '<') && next == '=') {
      push(TokenKind::kOperator, 2);
    } else if (c == '=' || c == '>' || c == '<' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%' ||
               c == '^') {
      push(TokenKind::kOperator, 1);
    } else {
      r.error = "unexpected character '" + std::string(1, c) + "' at offset " + std::to_string(i);
      return r;
    }
  }
  return r;
}

}  // namespace dha::tenancy
