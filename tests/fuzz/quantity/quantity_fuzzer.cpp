// Resource quantities ("150", "250m", "1.5Gi", "1e3") come from user specs and plugin topology.
// For every input:
//   - parse_quantity returns a finite value that keeps the text, or a reason;
//   - the milli value agrees with the value: same sign, within one milli (rounded away from
//     zero), saturated rather than wrapped;
//   - format_milli_quantity() renders a milli count (up to 2^53) as a quantity that parses back
//     to it.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "dha/model/quantity.hpp"
#include "fuzz_check.hpp"

using dha::fuzz::printable;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto q = dha::model::parse_quantity(text, &why);
  if (!q) {
    FUZZ_CHECK(!why.empty(), "refused without a reason: " + printable(text));
  } else {
    FUZZ_CHECK(q->text == text);
    FUZZ_CHECK(std::isfinite(q->value), printable(text));
    if (q->value > 0)
      FUZZ_CHECK(q->milli >= 1, "positive value, milli " + std::to_string(q->milli) + ": " + printable(text));
    if (q->value < 0)
      FUZZ_CHECK(q->milli <= -1, "negative value, milli " + std::to_string(q->milli) + ": " + printable(text));
    if (q->value == 0)
      FUZZ_CHECK(q->milli == 0, "zero value, milli " + std::to_string(q->milli) + ": " + printable(text));
    const double expected = q->value * 1000;
    if (std::fabs(expected) < 9e15) {  // below 2^53 a milli count is exact in a double
      FUZZ_CHECK(
          std::fabs(static_cast<double>(q->milli) - expected) <= 1 + std::fabs(expected) * 1e-12,
          "milli " + std::to_string(q->milli) + " for value " + std::to_string(q->value) + ": " + printable(text));
    } else if (expected > 0) {
      FUZZ_CHECK(q->milli > 0);
    } else {
      FUZZ_CHECK(q->milli < 0);
    }
  }

  if (size >= sizeof(std::int64_t)) {
    std::int64_t milli;
    std::memcpy(&milli, data, sizeof milli);
    // Quantities are computed through doubles: exact up to 2^53 milli (9e12 units), which is
    // as far as this promise goes.
    if (milli >= -(std::int64_t{1} << 53) && milli <= (std::int64_t{1} << 53)) {
      const std::string rendered = dha::model::format_milli_quantity(milli);
      const auto back = dha::model::parse_quantity(rendered);
      FUZZ_CHECK(back && back->milli == milli, "format_milli_quantity(" + std::to_string(milli) + ") = " + rendered);
    }
  }
  return 0;
}
