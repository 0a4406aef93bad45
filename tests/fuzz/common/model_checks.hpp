#pragma once
// Checks shared by the fuzzers of the DHA model (spec, status, decide input).

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "dha/model/input_error.hpp"
#include "fuzz_check.hpp"

namespace dha::fuzz {

// JSON as the model reads it: iterative (no recursion on deep input), NaN/Infinity allowed as
// `db-autoscaler decide` allows them. nullopt-like: returns false when the text is not JSON.
inline bool parse_json(std::string_view text, rapidjson::Document& doc) {
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag>(text.data(), text.size());
  return !doc.HasParseError();
}

inline std::string stringify(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator,
                    rapidjson::kWriteNanAndInfFlag>
      w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// An InputError names a field under `root` and says "<field>: <problem>".
inline void check_input_error(const model::InputError& e, std::string_view root) {
  const std::string_view what = e.what();
  FUZZ_CHECK(e.field().starts_with(root), "error field outside " + std::string(root) + ": " + e.field());
  FUZZ_CHECK(what.starts_with(e.field() + ": ") && what.size() > e.field().size() + 2,
             "error without a problem: " + printable(what));
}

}  // namespace dha::fuzz
