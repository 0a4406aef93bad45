#pragma once

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <string_view>

namespace dha::admission::detail {

// Iterative parsing: a deeply nested body cannot exhaust the stack. Full precision: numbers
// round exactly as Go's strconv.ParseFloat does, so 3 and 3.0000000000000001 compare the way
// the reference compared them.
inline constexpr unsigned parse_flags = rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag;

inline bool parse_json(rapidjson::Document& doc, std::string_view text) {
  doc.Parse<parse_flags>(text.data(), text.size());
  return !doc.HasParseError();
}

} // namespace dha::admission::detail
