#pragma once

#include <rapidjson/document.h>

#include <string>

// `kubectl dha status` beyond the one screen: the list of a namespace's DHAs, and a DHA as
// kubectl prints an object with -o json / -o yaml.
namespace dha::cli {

// One row per DHA of a list (as the API server returns it): name, target, counts, the
// AbleToScale reason and the summary the operator wrote; <unknown> where the status has none.
std::string render_list(const rapidjson::Value& list);

// The object in `format` ("json": indented JSON; "yaml": block YAML). Throws
// std::invalid_argument for another format.
std::string render_object(const rapidjson::Value& object, const std::string& format);

}  // namespace dha::cli
