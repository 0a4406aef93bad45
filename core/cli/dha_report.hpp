#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "dha/kube/errors.hpp"

// The screens of `kubectl dha` (status, why, history), rendered from a DHA object and the list
// of its Events as the API server returns them. The wording of metrics, the summary and the
// gate trace comes from dha/model/status_display.hpp, the same code the operator writes status
// with. `now` is seconds since the epoch (ages are relative to it).
namespace dha::cli {

// `events_unread` says why the events could not be listed ("forbidden: User ... cannot list
// ..."); the screens print it where the events would be. Empty: `events` is the list.
std::string render_status(const rapidjson::Value& dha, const rapidjson::Value& events, std::int64_t now,
                          const std::string& events_unread = {});
std::string render_why(const rapidjson::Value& dha);
std::string render_history(const rapidjson::Value& dha, const rapidjson::Value& events, std::int64_t now,
                           const std::string& events_unread = {});

// Why a list of Events failed, for those screens: `forbidden: User "u" cannot list resource
// "events" in API group "" in the namespace "ns"` (the server's words), or `not read: ` with the
// reason and message of another error.
std::string why_events_unread(const kube::ApiError& error);

}  // namespace dha::cli
