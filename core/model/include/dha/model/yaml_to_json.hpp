#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace dha::model {

// Parses YAML (or JSON, which is YAML) into a RapidJSON document, typing plain scalars as YAML 1.2
// core does: null/~ -> null, true/false -> bool, integers, floats, else strings; quoted scalars
// stay strings ("150" vs 150 matters for int-or-string fields). Throws InputError(source, ...).
rapidjson::Document yaml_to_json(std::string_view text, const std::string& source);

}  // namespace dha::model
