#include "dha/admission/go_float_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace dha::admission {

std::string format_go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Whole numbers of magnitude below 1e6 (every replica count) are printed as plain
  // integers; this spares the digit shuffling below in the common case. -0 keeps its sign
  // through the general path.
  if (value == std::trunc(value) && std::fabs(value) < 1e6 && !(value == 0 && std::signbit(value))) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, static_cast<long>(value));
    if (ec == std::errc{}) return std::string(digits, end);
  }

  // to_chars in scientific form yields the shortest round-trip digits, "d.ddde±XX", which is
  // the digit string Go's shortest mode computes; only the layout differs.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  if (ec != std::errc{}) return "NaN";  // cannot happen with a 64-byte buffer
  std::string_view sci(buf, static_cast<std::size_t>(end - buf));

  std::string out;
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const auto e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos))
    if (c != '.') digits += c;
  const int exponent = std::atoi(std::string(sci.substr(e_pos + 1)).c_str());

  // strconv/ftoa.go: with the shortest precision the %e-or-%f decision uses precision 6.
  if (exponent < -4 || exponent >= 6) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    const int magnitude = std::abs(exponent);
    if (magnitude < 10) out += '0';
    out += std::to_string(magnitude);
    return out;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out += digits;
    return out;
  }
  const auto integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    out += digits;
    out.append(integer_digits - digits.size(), '0');
  } else {
    out.append(digits, 0, integer_digits);
    out += '.';
    out.append(digits, integer_digits);
  }
  return out;
}

}  // namespace dha::admission
