#include "dha/model/quantity.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dha::model {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Suffix {
  int exp10 = 0;
  int exp2 = 0;
};

// Decimal SI and binary SI multipliers, as in k8s.io/apimachinery resource/suffix.go.
std::optional<Suffix> parse_suffix(std::string_view s, std::string* error) {
  if (s.empty()) return Suffix{};
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K':
        return Suffix{0, 10};
      case 'M':
        return Suffix{0, 20};
      case 'G':
        return Suffix{0, 30};
      case 'T':
        return Suffix{0, 40};
      case 'P':
        return Suffix{0, 50};
      case 'E':
        return Suffix{0, 60};
      default:
        break;
    }
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n':
        return Suffix{-9, 0};
      case 'u':
        return Suffix{-6, 0};
      case 'm':
        return Suffix{-3, 0};
      case 'k':
        return Suffix{3, 0};
      case 'M':
        return Suffix{6, 0};
      case 'G':
        return Suffix{9, 0};
      case 'T':
        return Suffix{12, 0};
      case 'P':
        return Suffix{15, 0};
      case 'E':
        return Suffix{18, 0};
      default:
        break;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::size_t i = 1;
    bool negative = false;
    if (s[i] == '+' || s[i] == '-') {
      negative = s[i] == '-';
      ++i;
    }
    if (i == s.size()) {
      if (error) *error = "exponent has no digits";
      return std::nullopt;
    }
    long long exp = 0;
    for (; i < s.size(); ++i) {
      if (!is_digit(s[i])) {
        if (error) *error = "exponent must be a whole number";
        return std::nullopt;
      }
      // Past a few hundred the value is 0 or out of range anyway; stop growing to avoid overflow.
      if (exp < 100000) exp = exp * 10 + (s[i] - '0');
    }
    return Suffix{static_cast<int>(negative ? -exp : exp), 0};
  }
  if (error) *error = "unknown suffix \"" + std::string(s) + "\"";
  return std::nullopt;
}

double scaled(const std::string& digits, long long exp10, int exp2) {
  // Building "<digits>e<exp>" and letting strtod round once keeps "0.1" * 1000 exactly 100.
  const std::string text = digits + "e" + std::to_string(exp10);
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  return std::ldexp(v, exp2);
}

std::int64_t saturate_int64(double v) {
  constexpr double kMax = 9223372036854775807.0;
  if (std::isnan(v)) return 0;
  if (v >= kMax) return std::numeric_limits<std::int64_t>::max();
  if (v <= -kMax) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text, std::string* error) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string digits;  // mantissa digits without the point
  long long point_shift = 0;
  bool seen_point = false;
  bool seen_digit = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      digits.push_back(c);
      seen_digit = true;
      if (seen_point) --point_shift;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) {
    if (error) *error = text.empty() ? "empty" : "must start with a number";
    return std::nullopt;
  }
  const auto suffix = parse_suffix(text.substr(i), error);
  if (!suffix) return std::nullopt;

  const long long exp10 = point_shift + suffix->exp10;
  Quantity q;
  q.text = std::string(text);
  q.value = scaled(digits, exp10, suffix->exp2);
  if (!std::isfinite(q.value)) {
    if (error) *error = "out of range";
    return std::nullopt;
  }
  // Milli value: exact for anything written with at most milli precision; finer fractions round
  // away from zero, as Kubernetes does.
  const double milli = scaled(digits, exp10 + 3, suffix->exp2);
  q.milli = saturate_int64(std::ceil(milli));
  if (negative) {
    q.value = -q.value;
    q.milli = q.milli == std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::min() : -q.milli;
  }
  if (q.value == 0) q.value = 0;  // no "-0"
  return q;
}

std::string format_milli_quantity(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string format_plain_quantity(std::int64_t value) { return std::to_string(value); }

}  // namespace dha::model
