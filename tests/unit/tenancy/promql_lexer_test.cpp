#include <gtest/gtest.h>

#include "tenancy/promql_lexer.hpp"

namespace dha::tenancy {
namespace {

std::string kinds(std::string_view q) {
  const LexResult r = lex_promql(q);
  if (!r.error.empty()) return "error: " + r.error;
  std::string out;
  for (const Token& t : r.tokens) {
    switch (t.kind) {
      case TokenKind::kIdentifier:
        out += "I";
        break;
      case TokenKind::kString:
        out += "S";
        break;
      case TokenKind::kNumber:
        out += "N";
        break;
      case TokenKind::kLeftBrace:
        out += "{";
        break;
      case TokenKind::kRightBrace:
        out += "}";
        break;
      case TokenKind::kLeftParen:
        out += "(";
        break;
      case TokenKind::kRightParen:
        out += ")";
        break;
      case TokenKind::kLeftBracket:
        out += "[";
        break;
      case TokenKind::kRightBracket:
        out += "]";
        break;
      case TokenKind::kComma:
        out += ",";
        break;
      case TokenKind::kColon:
        out += ":";
        break;
      case TokenKind::kAt:
        out += "@";
        break;
      case TokenKind::kOperator:
        out += "o";
        break;
    }
  }
  return out;
}

TEST(PromqlLexer, TokenShapes) {
  const struct {
    const char* query;
    const char* want;
  } cases[] = {
      {R"(up{namespace="a"})", "I{IoS}"},
      {R"(rate(x{a!~'b'}[5m])[30m:1m])", "I(I{IoS}[N])[N:N]"},
      {"sum by (pod) (x) * on(namespace,pod) group_left() y", "II(I)(I)oI(I,I)I()I"},
      {"job:rate5m:sum offset -1h30m @ 1609746000", "IIoN@N"},
      {"x # comment {with} \"junk\n+ 1.5e-3 - 0x1F", "IoNoN"},
      {"a >= b != c =~ d", "IoIoIoI"},
      {"`raw \\ string`", "S"},
      {R"("\u00e9\x41\"")", "S"},
      {"[5m:]", "[N:]"},
  };
  for (const auto& c : cases) EXPECT_EQ(kinds(c.query), c.want) << c.query;
}

TEST(PromqlLexer, StringValuesAreUnescaped) {
  const LexResult r = lex_promql(R"("a\"b\\c\nd\u00e9\x41" 'it\'s')");
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.tokens.size(), 2u);
  EXPECT_EQ(r.tokens[0].text,
            "a\"b\\c\nd\xc3\xa9"
            "A");
  EXPECT_EQ(r.tokens[1].text, "it's");
}

TEST(PromqlLexer, RefusesWhatItCannotRead) {
  const char* bad[] = {"\"open", "'open", "`open",           R"("bad \q escape")", R"("\u12")",
                       "x;y",    "x $ y", "\"line\nbreak\"", R"("\ud800")",        "x \\ y"};
  for (const char* q : bad) EXPECT_EQ(kinds(q).rfind("error: ", 0), 0u) << q;
}

}  // namespace
}  // namespace dha::tenancy
