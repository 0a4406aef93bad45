#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// Times in DHA status are RFC3339 strings (metav1.Time, second precision); inside the decision
// core they are seconds since the Unix epoch. Pure calendar arithmetic, no time zone database.
namespace dha::model {

// 0 -> "1970-01-01T00:00:00Z".
std::string format_rfc3339(std::int64_t unix_seconds);

// Accepts "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)" ('t'/'z' and a space separator too);
// fractions of a second are dropped. nullopt when malformed.
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

}  // namespace dha::model
