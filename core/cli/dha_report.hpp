#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

// The screens of `kubectl dha` (status, why, history), rendered from a DHA object and the list
// of its Events as the API server returns them. The wording of metrics, the summary and the
// gate trace comes from dha/model/status_display.hpp, the same code the operator writes status
// with. `now` is seconds since the epoch (ages are relative to it).
namespace dha::cli {

std::string render_status(const rapidjson::Value& dha, const rapidjson::Value& events, std::int64_t now);
std::string render_why(const rapidjson::Value& dha);
std::string render_history(const rapidjson::Value& dha, const rapidjson::Value& events, std::int64_t now);

}  // namespace dha::cli
