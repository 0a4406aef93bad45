#pragma once

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <string_view>

namespace dha::admission::detail {

// Iterative parsing: a deeply nested body cannot exhaust the stack. Not kParseFullPrecisionFlag:
// in RapidJSON 1.1.0 that path shifts by negative amounts and calls clz(0) on extreme exponents
// (undefined behaviour, found by tests/fuzz/admission). The default path can differ from Go's
// ParseFloat only in the last bit of numbers with more than 15 significant digits, which no
// replica count has; both objects of a review are parsed the same way.
inline constexpr unsigned parse_flags = rapidjson::kParseIterativeFlag;

inline bool parse_json(rapidjson::Document& doc, std::string_view text) {
  doc.Parse<parse_flags>(text.data(), text.size());
  return !doc.HasParseError();
}

// Parses NUL-terminated `text` in place: strings without escapes are referenced where they
// are instead of being copied byte by byte into the allocator, which made parsing the largest
// single cost of a review. `text` must outlive `doc`. Accepts exactly what parse_json accepts
// for the same bytes, except that RapidJSON's stream quietly drops a lone leading 0xEF byte
// (its BOM check), which this rejects; a whole UTF-8 BOM is skipped by the caller.
inline bool parse_json_in_place(rapidjson::Document& doc, char* text) {
  doc.ParseInsitu<parse_flags>(text);
  return !doc.HasParseError();
}

}  // namespace dha::admission::detail
