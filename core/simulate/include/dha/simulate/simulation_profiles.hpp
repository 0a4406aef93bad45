#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

// Named behaviours to compare on one trace: each replaces the window, step, tolerance and policy
// fields of a spec's `behavior` (the convergence deadline and everything else stay the spec's).
namespace dha::decide {

// "default" (the controller defaults), "fast", "hpa", "adaptive", "predictive" (adaptive with
// provisioning ahead of the forecast).
std::vector<std::string> profile_names();

// `spec` is a DHA spec JSON object. Throws model::InputError for an unknown profile name.
void apply_profile(rapidjson::Value& spec, const std::string& profile, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::decide
